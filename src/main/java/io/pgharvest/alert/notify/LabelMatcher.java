package io.pgharvest.alert.notify;

import io.pgharvest.model.FieldProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A condition on one label of an alert, as Alertmanager writes it: the label's value equals
 * {@code value}, or matches it as a regular expression anchored at both ends; {@code isEqual}
 * false negates. A label the alert does not have has the empty value (Alertmanager's rule).
 */
public record LabelMatcher(String name, String value, Boolean isRegex, Boolean isEqual) {

    public LabelMatcher {
        value = value == null ? "" : value;
        isRegex = isRegex != null && isRegex;
        isEqual = isEqual == null || isEqual;
    }

    public static LabelMatcher equal(String name, String value) {
        return new LabelMatcher(name, value, false, true);
    }

    public boolean matches(Map<String, String> labels) {
        String actual = labels.getOrDefault(name, "");
        boolean hit = isRegex ? Pattern.compile(value).matcher(actual).matches() : value.equals(actual);
        return hit == isEqual;
    }

    /** Every problem of this matcher at {@code field} (e.g. {@code matchers[0]}); the value is not quoted. */
    public List<FieldProblem> problems(String field) {
        var problems = new ArrayList<FieldProblem>();
        if (name == null || name.isBlank()) {
            problems.add(new FieldProblem(field + ".name", "is required: the label to match"));
        }
        if (isRegex) {
            try {
                Pattern.compile(value);
            } catch (PatternSyntaxException e) {
                problems.add(new FieldProblem(field + ".value", "is not a valid regular expression: "
                        + e.getDescription() + " near index " + e.getIndex()));
            }
        }
        return problems;
    }

    /** Whether every matcher matches {@code labels}; true for none. */
    public static boolean all(List<LabelMatcher> matchers, Map<String, String> labels) {
        for (LabelMatcher matcher : matchers) {
            if (!matcher.matches(labels)) {
                return false;
            }
        }
        return true;
    }
}
