package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.RowTags;
import io.pgharvest.model.RowValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The rows of query_stats: what changed between two reads of pg_stat_statements for one database.
 *
 * <p>The rules (docs/query-insights.md): an entry's change is its current value minus the
 * previous one, or its current value when it is new (a query id first seen later counts from
 * zero), when the whole extension was reset since ({@code stats_reset} moved), when the entry was
 * reset or evicted and added again ({@code stats_since} later, 17+) or when any of its counters went
 * down; so no change is ever negative. Entries evicted since the previous read ({@code dealloc}
 * moved) lose what they did between the reads, and every row of that read says
 * {@code approximate = true}. Entries that did not change give no row. The {@code top} entries with
 * the most execution plus planning time are rows of their own; all the others are summed into one
 * row with {@code queryid = other}, so the rows of a read add up to the database's total change.
 *
 * <p>Every database of an instance is turned into rows on every read (300 databases every 30 s in
 * the benchmark), so a row is built the way the engine builds rows it reads: values as one array
 * over column names shared by all the rows of a counter set ({@link RowValues}), tags as one array
 * over shared tag names ({@link RowTags#sharingNames}), not a map per row.
 */
final class StatementDeltas {

    /** The query id tag of the row that sums the statements outside the top. */
    static final String OTHER = "other";
    /** The tag names of a statement's row and of the {@code other} row; shared by every row, never changed. */
    private static final String[] STATEMENT_TAGS = {"queryid", "dbname", "user", "toplevel"};
    private static final String[] OTHER_TAGS = {"queryid", "dbname"};
    /** The value columns of each counter set (one per installed extension version: a handful). */
    private static final Map<List<StatementCounter>, RowValues.Columns> COLUMNS = new ConcurrentHashMap<>();
    private static final Comparator<Change> MOST_TIME_FIRST = (a, b) -> {
        int byTime = Double.compare(b.time(), a.time());
        if (byTime != 0) {
            return byTime;
        }
        int byQuery = Long.compare(a.key().queryId(), b.key().queryId());
        if (byQuery != 0) {
            return byQuery;
        }
        int byUser = Long.compare(a.key().userId(), b.key().userId());
        return byUser != 0 ? byUser : Boolean.compare(a.key().toplevel(), b.key().toplevel());
    };

    private StatementDeltas() {
    }

    /**
     * @param previous the previous read, null on the first read of a source (which is only the baseline)
     * @param top how many statements get rows of their own
     * @param database the database's name (the dbname tag)
     * @return the rows, the top statements by time first and {@code other} last; empty on a baseline
     */
    static List<Measurement.Row> rows(StatementSnapshot previous, StatementSnapshot current, int top, String database) {
        if (previous == null || !previous.counters().equals(current.counters())) {
            return List.of(); // a baseline: nothing to subtract from (or the extension's columns changed)
        }
        List<StatementCounter> counters = current.counters();
        boolean fullReset = !Objects.equals(previous.statsReset(), current.statsReset());
        int execTime = counters.indexOf(StatementCounter.TOTAL_EXEC_TIME);
        int planTime = counters.indexOf(StatementCounter.TOTAL_PLAN_TIME);
        var changes = new ArrayList<Change>();
        Map<StatementKey, double[]> before = previous.entries();
        for (var entry : current.entries().entrySet()) {
            double[] delta = delta(fullReset ? null : before.get(entry.getKey()), entry.getValue(), counters.size());
            if (delta != null) {
                double time = (execTime < 0 ? 0 : delta[execTime]) + (planTime < 0 ? 0 : delta[planTime]);
                changes.add(new Change(entry.getKey(), delta, time));
            }
        }
        changes.sort(MOST_TIME_FIRST);
        boolean approximate = previous.dealloc() != current.dealloc();
        double seconds = Duration.between(previous.at(), current.at()).toMillis() / 1000.0;
        RowValues.Columns columns = COLUMNS.computeIfAbsent(counters, StatementDeltas::columns);
        var rows = new ArrayList<Measurement.Row>(Math.min(changes.size(), top + 1));
        double[] other = null;
        for (int i = 0; i < changes.size(); i++) {
            Change change = changes.get(i);
            if (i < top) {
                StatementKey key = change.key();
                String user = current.roleNames().get(key.userId());
                var tags = RowTags.sharingNames(STATEMENT_TAGS, new String[] {Long.toString(key.queryId()), database,
                        user != null ? user : Long.toString(key.userId()), key.toplevel() ? "true" : "false"});
                rows.add(new Measurement.Row(values(columns, change.delta(), counters, approximate, seconds), tags));
            } else {
                if (other == null) {
                    other = new double[counters.size()];
                }
                for (int c = 0; c < other.length; c++) {
                    other[c] += change.delta()[c];
                }
            }
        }
        if (other != null) {
            rows.add(new Measurement.Row(values(columns, other, counters, approximate, seconds),
                    RowTags.sharingNames(OTHER_TAGS, new String[] {OTHER, database})));
        }
        return rows;
    }

    /**
     * An entry's change, or null when nothing changed: the difference, or the current values when
     * the entry is new, was reset ({@code stats_since} later) or any counter went down.
     */
    static double[] delta(double[] before, double[] now, int counters) {
        boolean restarted = before == null || now[counters] > before[counters];
        if (!restarted) {
            for (int c = 0; c < counters; c++) {
                if (now[c] < before[c]) {
                    restarted = true;
                    break;
                }
            }
        }
        boolean changed = false;
        for (int c = 0; c < counters && !changed; c++) {
            changed = restarted ? now[c] != 0 : now[c] != before[c];
        }
        if (!changed) {
            return null; // an entry that did not run since the previous read: no array for it
        }
        double[] delta = new double[counters];
        for (int c = 0; c < counters; c++) {
            delta[c] = restarted ? now[c] : now[c] - before[c];
        }
        return delta;
    }

    /** The counters' fields, then mean_exec_time, approximate and interval_seconds: a row's value columns. */
    private static RowValues.Columns columns(List<StatementCounter> counters) {
        var names = new ArrayList<String>(counters.size() + 3);
        counters.forEach(counter -> names.add(counter.field()));
        names.addAll(List.of("mean_exec_time", "approximate", "interval_seconds"));
        return new RowValues.Columns(names);
    }

    private static RowValues values(RowValues.Columns columns, double[] delta, List<StatementCounter> counters,
            boolean approximate, double seconds) {
        int size = counters.size();
        var values = new Object[size + 3];
        double calls = 0;
        double execTime = 0;
        for (int c = 0; c < size; c++) {
            StatementCounter counter = counters.get(c);
            values[c] = counter.isCount() ? (Object) Math.round(delta[c]) : (Object) delta[c];
            if (counter == StatementCounter.CALLS) {
                calls = delta[c];
            } else if (counter == StatementCounter.TOTAL_EXEC_TIME) {
                execTime = delta[c];
            }
        }
        values[size] = calls > 0 ? execTime / calls : null;
        values[size + 1] = approximate;
        values[size + 2] = seconds;
        return new RowValues(columns, values);
    }

    private record Change(StatementKey key, double[] delta, double time) {
    }
}
