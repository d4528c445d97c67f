package io.pgharvest.history.prometheus;

import io.pgharvest.model.OutputNames;
import io.pgharvest.window.SeriesKind;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * The PromQL of the reader, over the names and labels {@code sink.SeriesMapping} writes. Label
 * values are quoted here, in one place (a source or tag value is text the operator chose).
 */
final class PromQl {

    /** The labels that tell a statement of {@code query_stats} apart. */
    static final String STATEMENT_LABELS = "queryid, dbname, user, toplevel";

    private PromQl() {
    }

    /**
     * The series of one column: its gauge name or its counter name (whichever the catalog made it
     * when the sink wrote it), of one source, narrowed by {@code tags}.
     */
    static String selector(String metric, String column, String source, Map<String, String> tags) {
        String gauge = OutputNames.family(metric, column, false);
        String counter = OutputNames.series(OutputNames.family(metric, column, true), true);
        var selector = new StringBuilder("{__name__=~").append(quote(gauge + "|" + counter))
                .append(", ").append(OutputNames.SOURCE_LABEL).append('=').append(quote(source));
        new TreeMap<>(tags).forEach((name, value) -> selector.append(", ").append(OutputNames.labelName(name))
                .append('=').append(quote(value)));
        return selector.append('}').toString();
    }

    /** The bucket's value ending at the evaluation time, one step long. */
    static String bucketed(String selector, SeriesKind kind, Duration step) {
        String range = seconds(step);
        return switch (kind) {
            case GAUGE -> "avg_over_time(" + selector + "[" + range + "])";
            case DELTA -> "sum_over_time(" + selector + "[" + range + "])";
            // The last sample in the bucket less the last before it; a reset (negative) gives no point, and a
            // bucket without a sample none (an instant selector would repeat the last value for 5 minutes).
            case COUNTER -> "((" + selector + " - " + selector + " offset " + range + ") >= 0) / "
                    + step.toMillis() / 1000.0 + " and count_over_time(" + selector + "[" + range + "])";
        };
    }

    static String topStatements(String source, Duration length, int limit) {
        return "topk(" + limit + ", " + perStatement(source, "total_exec_time", length) + ")";
    }

    static String perStatement(String source, String column, Duration length) {
        String function = column.equals("approximate") ? "max" : "sum";
        return function + " by (" + STATEMENT_LABELS + ") (" + function + "_over_time("
                + selector("query_stats", column, source, Map.of()) + "[" + seconds(length) + "]))";
    }

    static String texts(String source, Duration length) {
        return "max by (queryid, query) (last_over_time({__name__=" + quote(OutputNames.PREFIX + "query_text_info")
                + ", " + OutputNames.SOURCE_LABEL + "=" + quote(source) + "}[" + seconds(length) + "]))";
    }

    /** A statement's identity from its labels, each present (empty when the store has none). */
    static Map<String, String> statementKey(Map<String, String> labels) {
        return Map.of("queryid", labels.getOrDefault("queryid", ""), "dbname", labels.getOrDefault("dbname", ""),
                "user", labels.getOrDefault("user", ""), "toplevel", labels.getOrDefault("toplevel", ""));
    }

    /** A PromQL string literal: double quotes, backslash escapes. */
    static String quote(String value) {
        var quoted = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '\\' -> quoted.append("\\\\");
                case '"' -> quoted.append("\\\"");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                default -> quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    /** A range in whole milliseconds, as PromQL writes it. */
    static String seconds(Duration duration) {
        return duration.toMillis() + "ms";
    }
}
