package io.pgharvest.alert.rule;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A summary or description: text with {@code {{ field }}} placeholders, where a field is a column
 * or tag of the row, {@code value} (the value that made the condition true), {@code source}
 * ({@code source.name}), {@code source.group}, {@code source.kind}, {@code source.tags.NAME} or
 * {@code params.NAME}. Checked when the rule is saved (a field the row cannot have is an error)
 * and rendered as plain text: what a receiver shows is escaped by that receiver.
 */
public final class AlertTemplate {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_.]*)\\s*}}");

    private final String text;

    private AlertTemplate(String text) {
        this.text = text;
    }

    public static AlertTemplate of(String text) {
        return new AlertTemplate(text == null ? "" : text);
    }

    /** The fields named that {@code known} does not accept, in order of appearance. */
    public List<String> unknownFields(Predicate<String> known) {
        var unknown = new ArrayList<String>();
        Matcher m = PLACEHOLDER.matcher(text);
        while (m.find()) {
            if (!known.test(m.group(1)) && !unknown.contains(m.group(1))) {
                unknown.add(m.group(1));
            }
        }
        return unknown;
    }

    /** The text with each placeholder replaced by its field's value (empty when the row has none). */
    public String render(Map<String, String> fields) {
        Matcher m = PLACEHOLDER.matcher(text);
        var out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(fields.getOrDefault(m.group(1), "")));
        }
        m.appendTail(out);
        return out.toString();
    }
}
