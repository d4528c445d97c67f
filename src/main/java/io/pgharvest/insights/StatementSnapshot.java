package io.pgharvest.insights;

import io.pgharvest.model.RowValues;
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
        var cells = new Cells(read);
        long dealloc = 0;
        Long statsReset = null;
        var all = HashMap.<StatementKey, double[]>newHashMap(split ? 0 : rows.size());
        var byDatabase = new HashMap<String, Map<StatementKey, double[]>>();
        var roleNames = new HashMap<Long, String>();
        // The instance-wide read comes ordered by database, so the split looks a database up once
        // per database, not once per entry; any order still splits right.
        String database = null;
        Map<StatementKey, double[]> entries = all;
        long lastUserId = Long.MIN_VALUE;
        for (Map<String, Object> row : rows) {
            cells.row(row);
            dealloc = cells.get(Cells.DEALLOC) instanceof Number n ? n.longValue() : 0;
            statsReset = cells.get(Cells.STATS_RESET) instanceof Number n ? n.longValue() : null;
            if (!(cells.get(Cells.QUERY_ID) instanceof Number queryId)) {
                continue; // the one row of an empty pg_stat_statements
            }
            if (split) {
                if (!(cells.get(Cells.DATNAME) instanceof String name)) {
                    continue; // an entry of a database dropped since
                }
                if (!name.equals(database)) {
                    database = name;
                    entries = byDatabase.computeIfAbsent(name, d -> new HashMap<>());
                }
            }
            long userId = ((Number) cells.get(Cells.USER_ID)).longValue();
            var key = new StatementKey(queryId.longValue(), userId, Boolean.TRUE.equals(cells.get(Cells.TOPLEVEL)));
            double[] values = new double[size + 1];
            for (int i = 0; i < size; i++) {
                values[i] = cells.get(Cells.FIXED + i) instanceof Number n ? n.doubleValue() : 0;
            }
            values[size] = cells.get(Cells.STATS_SINCE) instanceof Number n ? n.doubleValue() : Double.NaN;
            entries.put(key, values);
            if (userId != lastUserId) {
                lastUserId = userId;
                roleNames.putIfAbsent(userId, String.valueOf(cells.get(Cells.ROLNAME)));
            }
        }
        Map<Long, String> roles = Map.copyOf(roleNames);
        var empty = new StatementSnapshot(at, dealloc, statsReset, read, split ? Map.of() : all, roles);
        var snapshots = HashMap.<String, StatementSnapshot>newHashMap(byDatabase.size());
        byDatabase.forEach((name, kept) ->
                snapshots.put(name, new StatementSnapshot(at, empty.dealloc(), empty.statsReset(), read, kept, roles)));
        return new InstanceStatements.Read(at, empty, Map.copyOf(snapshots));
    }

    /**
     * The cells of the statistics read's rows by position: a row of the engine's reads
     * ({@link RowValues}) is read by column index, resolved once per result instead of a name
     * look-up per cell (thousands of rows of ~30 cells per instance-wide read); any other map by name.
     */
    private static final class Cells {
        static final int DEALLOC = 0;
        static final int STATS_RESET = 1;
        static final int QUERY_ID = 2;
        static final int USER_ID = 3;
        static final int TOPLEVEL = 4;
        static final int ROLNAME = 5;
        static final int DATNAME = 6;
        static final int STATS_SINCE = 7;
        static final int FIXED = 8;

        private final String[] names;
        private RowValues.Columns resolvedFor;
        private int[] index;
        private RowValues values;
        private Map<String, Object> map;

        Cells(List<StatementCounter> counters) {
            names = new String[FIXED + counters.size()];
            System.arraycopy(new String[] {"dealloc", "stats_reset", "queryid", "userid", "toplevel", "rolname",
                "datname", "stats_since"}, 0, names, 0, FIXED);
            for (int i = 0; i < counters.size(); i++) {
                names[FIXED + i] = counters.get(i).field();
            }
        }

        void row(Map<String, Object> row) {
            if (row instanceof RowValues rv) {
                if (rv.columns() != resolvedFor) {
                    resolve(rv.columns());
                }
                values = rv;
                map = null;
            } else {
                values = null;
                map = row;
            }
        }

        Object get(int cell) {
            if (values == null) {
                return map.get(names[cell]);
            }
            int i = index[cell];
            return i < 0 ? null : values.value(i);
        }

        private void resolve(RowValues.Columns columns) {
            var at = new HashMap<String, Integer>();
            for (int i = 0; i < columns.size(); i++) {
                at.put(columns.name(i), i);
            }
            index = new int[names.length];
            for (int cell = 0; cell < names.length; cell++) {
                index[cell] = at.getOrDefault(names[cell], -1);
            }
            resolvedFor = columns;
        }
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
