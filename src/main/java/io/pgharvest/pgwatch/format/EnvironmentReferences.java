package io.pgharvest.pgwatch.format;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Expands {@code $NAME} and {@code ${NAME}} from an environment lookup; {@code $$} stands for a
 * literal {@code $}, and a {@code $} not followed by a name stays as it is.
 */
public final class EnvironmentReferences {

    private static final Pattern REFERENCE = Pattern.compile("\\$(?:\\$|\\{([A-Za-z_][A-Za-z0-9_]*)}|([A-Za-z_][A-Za-z0-9_]*))");

    /** The expanded text and the names that had no value (their references are left in place). */
    public record Expansion(String value, List<String> missing) {

        public Expansion {
            missing = List.copyOf(missing);
        }
    }

    private final UnaryOperator<String> environment;

    public EnvironmentReferences(UnaryOperator<String> environment) {
        this.environment = environment;
    }

    public Expansion expand(String text) {
        if (text == null || text.indexOf('$') < 0) {
            return new Expansion(text, List.of());
        }
        var missing = new ArrayList<String>();
        Matcher matcher = REFERENCE.matcher(text);
        var result = new StringBuilder();
        while (matcher.find()) {
            String name = matcher.group(1) != null ? matcher.group(1) : matcher.group(2);
            String replacement;
            if (name == null) {
                replacement = "$";
            } else {
                String value = environment.apply(name);
                if (value == null) {
                    missing.add(name);
                    replacement = matcher.group();
                } else {
                    replacement = value;
                }
            }
            matcher.appendReplacement(result, Matcher.quoteReplacement(replacement));
        }
        matcher.appendTail(result);
        return new Expansion(result.toString(), missing);
    }
}
