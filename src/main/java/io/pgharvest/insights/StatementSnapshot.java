package io.pgharvest.insights;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

    /** Builds a snapshot from the rows of {@link StatementsExtension#statisticsSql(boolean, boolean)} for one database. */
    static StatementSnapshot of(Instant at, List<StatementCounter> counters, List<Map<String, Object>> rows) {
        return read(at, counters, rows, false).empty();
    }

    /**
     * Splits the rows of the whole instance's read ({@link StatementsExtension#statisticsSql(boolean, boolean)}
     * with every database, a {@code datname} per row) into one snapshot per database, all with the
     * read's dealloc count, reset and role names (they are the instance's).
     */
    static InstanceStatements.Read byDatabase(Instant at, List<StatementCounter> counters,
            List<Map<String, Object>> rows) {
        return read(at, counters, rows, true);
    }

    private static InstanceStatements.Read read(Instant at, List<StatementCounter> counters,
            List<Map<String, Object>> rows, boolean split) {
        List<StatementCounter> read = List.copyOf(counters);
        int size = read.size();
        String[] fields = new String[size];
        for (int i = 0; i < size; i++) {
            fields[i] = read.get(i).field();
        }
        long dealloc = 0;
        Long statsReset = null;
        var all = HashMap.<StatementKey, double[]>newHashMap(split ? 0 : rows.size());
        var byDatabase = new HashMap<String, Map<StatementKey, double[]>>();
        var roleNames = new HashMap<Long, String>();
        for (Map<String, Object> row : rows) {
            dealloc = row.get("dealloc") instanceof Number n ? n.longValue() : 0;
            statsReset = row.get("stats_reset") instanceof Number n ? n.longValue() : null;
            if (!(row.get("queryid") instanceof Number queryId)) {
                continue; // the one row of an empty pg_stat_statements
            }
            Map<StatementKey, double[]> entries = all;
            if (split) {
                if (!(row.get("datname") instanceof String database)) {
                    continue; // an entry of a database dropped since
                }
                entries = byDatabase.computeIfAbsent(database, d -> new HashMap<>());
            }
            long userId = ((Number) row.get("userid")).longValue();
            var key = new StatementKey(queryId.longValue(), userId, Boolean.TRUE.equals(row.get("toplevel")));
            double[] values = new double[size + 1];
            for (int i = 0; i < size; i++) {
                values[i] = row.get(fields[i]) instanceof Number n ? n.doubleValue() : 0;
            }
            values[size] = row.get("stats_since") instanceof Number n ? n.doubleValue() : Double.NaN;
            entries.put(key, values);
            roleNames.computeIfAbsent(userId, id -> String.valueOf(row.get("rolname")));
        }
        Map<Long, String> roles = Map.copyOf(roleNames);
        var empty = new StatementSnapshot(at, dealloc, statsReset, read, split ? Map.of() : all, roles);
        var snapshots = HashMap.<String, StatementSnapshot>newHashMap(byDatabase.size());
        byDatabase.forEach((database, entries) ->
                snapshots.put(database, new StatementSnapshot(at, empty.dealloc(), empty.statsReset(), read, entries, roles)));
        return new InstanceStatements.Read(at, empty, Map.copyOf(snapshots));
    }

    /**
     * This snapshot without the entries of the roles named (a member's own roles when the read was
     * made by another member's session); itself when it has none of them.
     */
    StatementSnapshot withoutRoles(Set<String> names) {
        boolean any = false;
        for (var role : roleNames.entrySet()) {
            any |= names.contains(role.getValue());
        }
        if (!any) {
            return this;
        }
        var kept = HashMap.<StatementKey, double[]>newHashMap(entries.size());
        entries.forEach((key, values) -> {
            if (!names.contains(roleNames.get(key.userId()))) {
                kept.put(key, values);
            }
        });
        return new StatementSnapshot(at, dealloc, statsReset, counters, kept, roleNames);
    }
}
