package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import java.sql.SQLException;
import java.util.List;

/**
 * query_stats for one source: reads pg_stat_statements of the source's database without texts and
 * delivers the change since its previous read ({@link StatementDeltas}).
 *
 * <p>Why a native metric: the previous read is state, and {@code nativemetric} already gives a
 * metric a collector per source that lives as long as the source collects it, runs on the
 * source's own session after the tick's round trip and is dropped with the source. The other
 * per-source state of the engine, {@code changes.ChangeEventsPublisher}, sits between the
 * reapers and the sinks and sees only rows that were already read: the statistics would cross
 * the engine whole (5,000 rows a database) only to be cut to the top N there, and the query
 * could not be built for the installed extension's columns. Here the full read never leaves
 * this class; only the top rows and {@code other} do. Used by the source's reaper thread only.
 */
final class QueryStatsCollector implements NativeMetric.Collector {

    private final int top;
    private final boolean includeOwnStatements;
    private StatementsExtension extension;
    private StatementSnapshot previous;

    /** @param top how many statements get rows of their own; pgharvest's own statements left out */
    QueryStatsCollector(int top) {
        this(top, false);
    }

    /**
     * @param top how many statements get rows of their own
     * @param includeOwnStatements whether the statements of the session's own roles count
     */
    QueryStatsCollector(int top, boolean includeOwnStatements) {
        this.top = top;
        this.includeOwnStatements = includeOwnStatements;
    }

    @Override
    public List<Measurement.Row> collect(NativeTarget target) throws Exception {
        if (extension == null) {
            extension = StatementsExtension.find(target.sql(), target.database());
        }
        StatementSnapshot current;
        try {
            current = StatementSnapshot.of(target.now(), extension.counters().stream()
                    .map(StatementsExtension.ReadCounter::counter).toList(),
                    target.sql().query(extension.statisticsSql(includeOwnStatements)));
        } catch (SQLException e) {
            if (StatementsExtension.CHANGED_STATES.contains(e.getSQLState())) {
                extension = null; // dropped, moved or updated: look it up again on the next tick
                previous = null;
            }
            throw e;
        }
        List<Measurement.Row> rows = StatementDeltas.rows(previous, current, top, target.database());
        previous = current;
        target.shelf().item(StatementBook.class, StatementBook::new).rank(rows);
        return rows;
    }

    /** The entries of the previous read (the state this collector holds). */
    int heldEntries() {
        return previous == null ? 0 : previous.entries().size();
    }
}
