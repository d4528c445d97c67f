package io.pgharvest.insights;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One read of pg_stat_statements for one database: every entry's counters, and the extension's
 * own dealloc count and last reset. The collector keeps the previous one to subtract; it holds at
 * most {@code pg_stat_statements.max} entries (what the server had), each a key and one
 * {@code double[]} (the counters of {@link #counters}, then {@code stats_since} in epoch
 * microseconds or NaN), about 300 bytes an entry (docs/query-insights.md, "Memory").
 *
 * @param at when it was read (the tick's time)
 * @param dealloc how many times entries were evicted since the last full reset
 * @param statsReset the last full reset, epoch microseconds (null when unknown)
 * @param counters the counters read, in the order of each entry's values
 * @param entries each entry's values
 * @param roleNames the role name of each user id seen
 */
record StatementSnapshot(Instant at, long dealloc, Long statsReset, List<StatementCounter> counters,
        Map<StatementKey, double[]> entries, Map<Long, String> roleNames) {

    /** The counters' values of an entry, then its stats_since. */
    static int statsSinceIndex(List<StatementCounter> counters) {
        return counters.size();
    }

    /** Builds a snapshot from the rows of {@link StatementsExtension#statisticsSql(boolean)}. */
    static StatementSnapshot of(Instant at, List<StatementCounter> counters, List<Map<String, Object>> rows) {
        long dealloc = 0;
        Long statsReset = null;
        var entries = HashMap.<StatementKey, double[]>newHashMap(rows.size());
        var roleNames = new HashMap<Long, String>();
        for (Map<String, Object> row : rows) {
            dealloc = row.get("dealloc") instanceof Number n ? n.longValue() : 0;
            statsReset = row.get("stats_reset") instanceof Number n ? n.longValue() : null;
            if (!(row.get("queryid") instanceof Number queryId)) {
                continue; // the one row of an empty pg_stat_statements
            }
            long userId = ((Number) row.get("userid")).longValue();
            var key = new StatementKey(queryId.longValue(), userId, Boolean.TRUE.equals(row.get("toplevel")));
            double[] values = new double[counters.size() + 1];
            for (int i = 0; i < counters.size(); i++) {
                values[i] = row.get(counters.get(i).field()) instanceof Number n ? n.doubleValue() : 0;
            }
            values[counters.size()] = row.get("stats_since") instanceof Number n ? n.doubleValue() : Double.NaN;
            entries.put(key, values);
            roleNames.putIfAbsent(userId, String.valueOf(row.get("rolname")));
        }
        return new StatementSnapshot(at, dealloc, statsReset, List.copyOf(counters), entries, Map.copyOf(roleNames));
    }
}
