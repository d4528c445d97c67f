package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.sql.PlainRead;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What query_plans needs of one source's other insights metrics, kept on the source's
 * {@link io.pgharvest.nativemetric.SourceShelf}: the query ids of the latest query_stats read by
 * their time in it, and the texts query_texts read, kept only for plain reads
 * ({@link PlainRead}) of at most {@link #MAX_TEXT_LENGTH} characters and only while the id is in
 * pg_stat_statements (so at most pg_stat_statements.max texts). query_plans thus never reads a
 * text itself. Used by the source's reaper thread only.
 */
final class StatementBook {

    /** Longer texts are not kept, and their statements get no plan. */
    static final int MAX_TEXT_LENGTH = 8192;

    private List<Long> ranked = List.of();
    private Map<Long, Pace> paces = Map.of();
    private final Map<Long, String> plainReads = new HashMap<>();

    /**
     * What one statement's calls did in a query_stats read, summed over its roles: what a plan
     * change shows in (docs/query-insights.md, plans asked again).
     *
     * @param calls calls in the read
     * @param meanExecTime execution time per call (ms)
     * @param rowsPerCall rows per call
     */
    record Pace(double calls, double meanExecTime, double rowsPerCall) {

        /**
         * A move of the time per call below this is noise, whatever its factor: sub-millisecond
         * index lookups vary threefold between reads (measured on a test server) without any
         * change of plan.
         */
        static final double MIN_TIME_MOVE_MS = 0.1;
        /** A move of the rows per call below this is no move (0 and 0.5 rows a call are one plan). */
        static final double MIN_ROWS_MOVE = 1;

        /**
         * Whether this pace and {@code other} differ by {@code factor} or more, either way, in time
         * per call or in rows per call, by at least {@link #MIN_TIME_MOVE_MS} or {@link #MIN_ROWS_MOVE}.
         */
        boolean movedFrom(Pace other, double factor) {
            return apart(meanExecTime, other.meanExecTime, factor, MIN_TIME_MOVE_MS)
                    || apart(rowsPerCall, other.rowsPerCall, factor, MIN_ROWS_MOVE);
        }

        private static boolean apart(double a, double b, double factor, double minimum) {
            double low = Math.min(a, b);
            double high = Math.max(a, b);
            return high - low >= minimum && (low <= 0 || high / low >= factor);
        }
    }

    /** Ranks the query ids of a query_stats read by execution plus planning time (other left out). */
    void rank(List<Measurement.Row> statsRows) {
        var time = new LinkedHashMap<Long, Double>();
        var totals = new HashMap<Long, double[]>();
        for (Measurement.Row row : statsRows) {
            String id = row.tags().get("queryid");
            if (id == null || StatementDeltas.OTHER.equals(id)) {
                continue;
            }
            long queryId = Long.parseLong(id);
            double execTime = number(row.values().get("total_exec_time"));
            time.merge(queryId, execTime + number(row.values().get("total_plan_time")), Double::sum);
            double[] sums = totals.computeIfAbsent(queryId, k -> new double[3]);
            sums[0] += number(row.values().get("calls"));
            sums[1] += execTime;
            sums[2] += number(row.values().get("rows"));
        }
        var ids = new ArrayList<>(time.keySet());
        ids.sort(Comparator.comparingDouble((Long id) -> time.get(id)).reversed());
        ranked = List.copyOf(ids);
        var latest = HashMap.<Long, Pace>newHashMap(totals.size());
        totals.forEach((id, sums) -> {
            if (sums[0] > 0) {
                latest.put(id, new Pace(sums[0], sums[1] / sums[0], sums[2] / sums[0]));
            }
        });
        paces = latest;
    }

    /** The pace of {@code queryId} in the latest query_stats read; null when it was not called in it. */
    Pace pace(long queryId) {
        return paces.get(queryId);
    }

    /** Keeps the text of {@code queryId} when it is a plain read short enough to plan. */
    void text(long queryId, String text) {
        if (text.length() <= MAX_TEXT_LENGTH && PlainRead.parameterCount(text).isPresent()) {
            plainReads.put(queryId, text);
        } else {
            plainReads.remove(queryId);
        }
    }

    /** Forgets the texts of ids no longer in pg_stat_statements. */
    void retainTexts(Set<Long> present) {
        plainReads.keySet().retainAll(present);
    }

    /** The query ids of the latest query_stats read, most time first. */
    List<Long> ranked() {
        return ranked;
    }

    /** The text of a plain read, null when the id is not one (or its text was not read yet). */
    String plainRead(long queryId) {
        return plainReads.get(queryId);
    }

    private static double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : 0;
    }
}
