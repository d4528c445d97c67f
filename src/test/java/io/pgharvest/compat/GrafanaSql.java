package io.pgharvest.compat;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Expands what Grafana's PostgreSQL data source replaces in a panel's raw SQL before sending it:
 * template variables ({@code $name}, {@code ${name}}, {@code ${name:sqlstring}}, {@code [[name]]})
 * and the time macros ({@code $__timeFilter}, {@code $__timeGroup}, {@code $__timeGroupAlias},
 * {@code $__timeFrom}, {@code $__timeTo}, {@code $__unixEpochFilter}, {@code $__interval},
 * {@code $__from}, {@code $__to}), as documented for Grafana's PostgreSQL data source.
 */
final class GrafanaSql {

    private static final Pattern TIME_GROUP = Pattern.compile("\\$__timeGroup(Alias)?\\(\\s*([^,()]+?)\\s*,\\s*'?([^,')]+)'?\\s*(?:,[^)]*)?\\)");
    private static final Pattern TIME_FILTER = Pattern.compile("\\$__timeFilter\\(\\s*([^)]+?)\\s*\\)");
    private static final Pattern EPOCH_FILTER = Pattern.compile("\\$__unixEpochFilter\\(\\s*([^)]+?)\\s*\\)");
    private static final Pattern BRACED = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::([a-z]+))?}");
    private static final Pattern BRACKETED = Pattern.compile("\\[\\[([A-Za-z_][A-Za-z0-9_]*)]]");
    private static final Pattern PLAIN = Pattern.compile("\\$([A-Za-z_][A-Za-z0-9_]*)");

    private final Instant from;
    private final Instant to;
    private final Duration interval;

    GrafanaSql(Instant from, Instant to, Duration interval) {
        this.from = from;
        this.to = to;
        this.interval = interval;
    }

    String expand(String sql, Map<String, String> variables) {
        String out = variables(sql, variables);
        out = replace(TIME_GROUP, out, m -> {
            long seconds = seconds(m.group(3));
            String expr = "floor(extract(epoch from " + m.group(2) + ")/" + seconds + ")*" + seconds;
            return m.group(1) != null ? expr + " AS \"time\"" : expr;
        });
        out = replace(TIME_FILTER, out, m -> m.group(1) + " BETWEEN '" + from + "' AND '" + to + "'");
        out = replace(EPOCH_FILTER, out, m -> m.group(1) + " >= " + from.getEpochSecond() + " AND " + m.group(1)
                + " <= " + to.getEpochSecond());
        out = out.replace("$__timeFrom()", "'" + from + "'").replace("$__timeTo()", "'" + to + "'")
                .replace("$__interval_ms", Long.toString(interval.toMillis()))
                .replace("$__interval", interval.toSeconds() + "s")
                .replace("$__from", Long.toString(from.toEpochMilli()))
                .replace("$__to", Long.toString(to.toEpochMilli()));
        return out;
    }

    private static String variables(String sql, Map<String, String> variables) {
        String out = replace(BRACED, sql, m -> {
            String value = variables.get(m.group(1));
            if (value == null) {
                return m.group();
            }
            return m.group(2) == null || m.group(2).equals("raw") ? value : "'" + value.replace("'", "''") + "'";
        });
        out = replace(BRACKETED, out, m -> variables.getOrDefault(m.group(1), m.group()));
        return replace(PLAIN, out, m -> m.group(1).startsWith("__") ? m.group()
                : variables.getOrDefault(m.group(1), m.group()));
    }

    /** A Grafana interval ("30s", "5m", "1h", "auto", "$__interval" already expanded) in seconds. */
    long seconds(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        var m = Pattern.compile("(\\d+)(ms|s|m|h|d|w)?").matcher(t);
        if (!m.matches()) {
            return Math.max(1, interval.toSeconds());
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2) == null ? "s" : m.group(2)) {
            case "ms" -> Math.max(1, n / 1000);
            case "m" -> n * 60;
            case "h" -> n * 3600;
            case "d" -> n * 86_400;
            case "w" -> n * 604_800;
            default -> n;
        };
    }

    private static String replace(Pattern pattern, String text, java.util.function.Function<Matcher, String> by) {
        Matcher m = pattern.matcher(text);
        var out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(by.apply(m)));
        }
        m.appendTail(out);
        return out.toString();
    }
}
