package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
 */
final class StatementDeltas {

    /** The query id tag of the row that sums the statements outside the top. */
    static final String OTHER = "other";

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
        var changes = new ArrayList<Change>();
        for (var entry : current.entries().entrySet()) {
            double[] before = fullReset ? null : previous.entries().get(entry.getKey());
            double[] delta = delta(before, entry.getValue(), counters.size());
            if (delta != null) {
                changes.add(new Change(entry.getKey(), delta, time(delta, counters)));
            }
        }
        changes.sort(Comparator.comparingDouble(Change::time).reversed()
                .thenComparing(c -> c.key().queryId()).thenComparing(c -> c.key().userId())
                .thenComparing(c -> c.key().toplevel()));
        boolean approximate = previous.dealloc() != current.dealloc();
        double seconds = Duration.between(previous.at(), current.at()).toMillis() / 1000.0;
        var rows = new ArrayList<Measurement.Row>(Math.min(changes.size(), top + 1));
        double[] other = null;
        for (int i = 0; i < changes.size(); i++) {
            Change change = changes.get(i);
            if (i < top) {
                var tags = new LinkedHashMap<String, String>();
                tags.put("queryid", Long.toString(change.key().queryId()));
                tags.put("dbname", database);
                tags.put("user", current.roleNames().getOrDefault(change.key().userId(),
                        Long.toString(change.key().userId())));
                tags.put("toplevel", Boolean.toString(change.key().toplevel()));
                rows.add(new Measurement.Row(values(change.delta(), counters, approximate, seconds), tags));
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
            rows.add(new Measurement.Row(values(other, counters, approximate, seconds),
                    Map.of("queryid", OTHER, "dbname", database)));
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
        double[] delta = new double[counters];
        boolean changed = false;
        for (int c = 0; c < counters; c++) {
            delta[c] = restarted ? now[c] : now[c] - before[c];
            changed |= delta[c] != 0;
        }
        return changed ? delta : null;
    }

    private static double time(double[] delta, List<StatementCounter> counters) {
        double time = 0;
        for (int c = 0; c < counters.size(); c++) {
            StatementCounter counter = counters.get(c);
            if (counter == StatementCounter.TOTAL_EXEC_TIME || counter == StatementCounter.TOTAL_PLAN_TIME) {
                time += delta[c];
            }
        }
        return time;
    }

    private static Map<String, Object> values(double[] delta, List<StatementCounter> counters, boolean approximate,
            double seconds) {
        var values = new LinkedHashMap<String, Object>();
        double calls = 0;
        double execTime = 0;
        for (int c = 0; c < counters.size(); c++) {
            StatementCounter counter = counters.get(c);
            values.put(counter.field(), counter.isCount() ? (Object) Math.round(delta[c]) : (Object) delta[c]);
            if (counter == StatementCounter.CALLS) {
                calls = delta[c];
            } else if (counter == StatementCounter.TOTAL_EXEC_TIME) {
                execTime = delta[c];
            }
        }
        values.put("mean_exec_time", calls > 0 ? execTime / calls : null);
        values.put("approximate", approximate);
        values.put("interval_seconds", seconds);
        return values;
    }

    private record Change(StatementKey key, double[] delta, double time) {
    }
}
