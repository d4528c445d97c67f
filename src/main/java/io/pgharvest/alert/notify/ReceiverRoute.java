package io.pgharvest.alert.notify;

import io.pgharvest.model.FieldProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which alerts a receiver gets: those of one of {@code severities} (none listed: every severity)
 * whose labels match every one of {@code matchers}. A receiver without a route gets every alert.
 */
public record ReceiverRoute(List<String> severities, List<LabelMatcher> matchers) {

    private static final Set<String> SEVERITIES = Set.of("warning", "critical");

    public static final ReceiverRoute EVERYTHING = new ReceiverRoute(List.of(), List.of());

    public ReceiverRoute {
        severities = severities == null ? List.of() : List.copyOf(severities);
        matchers = matchers == null ? List.of() : List.copyOf(matchers);
    }

    public boolean matches(Map<String, String> labels) {
        return (severities.isEmpty() || severities.contains(labels.getOrDefault("severity", "")))
                && LabelMatcher.all(matchers, labels);
    }

    public List<FieldProblem> problems(String field) {
        var problems = new ArrayList<FieldProblem>();
        for (int i = 0; i < severities.size(); i++) {
            if (!SEVERITIES.contains(severities.get(i))) {
                problems.add(new FieldProblem(field + ".severities[" + i + "]", "must be warning or critical"));
            }
        }
        for (int i = 0; i < matchers.size(); i++) {
            problems.addAll(matchers.get(i).problems(field + ".matchers[" + i + "]"));
        }
        return problems;
    }
}
