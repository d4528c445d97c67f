package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.InstanceShelf;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * query_stats for one source: the change in pg_stat_statements of the source's database since its
 * previous read ({@link StatementDeltas}), read without texts.
 *
 * <p>pg_stat_statements is instance-wide, so while query_stats is collected on several databases of
 * one instance the statistics are read once per instance and interval, by one member whose database
 * has the extension, and every member takes its own database's entries from that read
 * ({@link InstanceStatements}). A database without the extension thus gets its rows as long as
 * another database of the instance that collects query_stats has it. Collected on one database of
 * the instance only (or on an unknown instance), it reads that database's entries itself.
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

    private static final Logger log = LoggerFactory.getLogger(QueryStatsCollector.class);
    private final int top;
    private final boolean includeOwnStatements;
    private final ExtensionLookup extension = new ExtensionLookup();
    /** The session's login and acting role, whose entries are left out of a read another member made. */
    private Set<String> ownRoles;
    private StatementSnapshot previous;
    /** The instance-wide read {@link #previous} came from; null when it came from this source's own read. */
    private InstanceStatements.Read taken;

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

    /**
     * This read's rows, and the texts of its top statements that query_texts does not know yet
     * ({@link TextsOnDemand}), under query_texts' storage name, so that a statement new to the top
     * has its text on the read that first ranks it. The texts' read failing fails neither this
     * read nor the tick: query_texts' own turn reads them again and reports its failure.
     */
    @Override
    public Map<String, List<Measurement.Row>> collectByName(NativeTarget target, String storageName)
            throws Exception {
        List<Measurement.Row> rows = collect(target);
        Map<String, List<Measurement.Row>> texts;
        try {
            texts = target.shelf().item(TextsOnDemand.class, TextsOnDemand::new).readUnknown(target,
                    target.shelf().item(StatementBook.class, StatementBook::new).ranked());
        } catch (Exception e) {
            log.debug("Source {}: the texts of new top statements were not read with query_stats ({});"
                    + " query_texts reads them on its turn", target.source(), e.toString());
            texts = Map.of();
        }
        if (texts.isEmpty()) {
            return Map.of(storageName, rows);
        }
        var byName = new HashMap<String, List<Measurement.Row>>(texts);
        byName.put(storageName, rows);
        return byName;
    }

    @Override
    public List<Measurement.Row> collect(NativeTarget target) throws Exception {
        InstanceShelf shelf = target.instanceShelf();
        StatementSnapshot current;
        if (shelf.isShared()) {
            current = fromInstanceRead(target, shelf.item(InstanceStatements.class, InstanceStatements::new));
            if (current == null) {
                return List.of(); // another member is reading, or the only reader has not read yet
            }
        } else {
            current = readOwnDatabase(target);
            taken = null;
        }
        List<Measurement.Row> rows = StatementDeltas.rows(previous, current, top, target.database());
        previous = current;
        target.shelf().item(StatementBook.class, StatementBook::new).rank(rows);
        return rows;
    }

    /** This database's entries read through this source's session (the metric is not shared). */
    private StatementSnapshot readOwnDatabase(NativeTarget target) throws Exception {
        StatementsExtension found = extension.find(target);
        if (found == null) {
            throw extension.missing();
        }
        return StatementSnapshot.of(target.now(), found.counters().stream().map(StatementsExtension.ReadCounter::counter)
                .toList(), read(target, found, false));
    }

    /**
     * This database's entries from the instance's latest read: another member's while it is fresh
     * and new to this source, else one this source makes (when its database has the extension and
     * no other member is reading). Null when there is nothing new to take yet.
     */
    private StatementSnapshot fromInstanceRead(NativeTarget target, InstanceStatements statements) throws Exception {
        Instant now = target.now();
        InstanceStatements.Read read = statements.reusable(target.interval(), now, taken,
                previous == null ? null : previous.at()).orElse(null);
        if (read == null) {
            // A database known to lack the extension is looked at again only when nobody else can read.
            StatementsExtension found = extension.missing() != null && statements.hasReader(target.interval(), now)
                    ? null : extension.find(target);
            if (found == null) {
                if (!statements.hasReader(target.interval(), now)) {
                    throw new NativeMetric.Unavailable(extension.missing().getMessage()
                            + "; no other database of this instance"
                            + " that collects query_stats has it either");
                }
                return null;
            }
            statements.readerSeen(now);
            if (!statements.tryClaim(now, now.plus(target.interval()))) {
                return null;
            }
            try {
                read = StatementSnapshot.byDatabase(now, found.counters().stream()
                        .map(StatementsExtension.ReadCounter::counter).toList(), read(target, found, true));
                statements.publish(read);
            } finally {
                statements.release();
            }
        }
        taken = read;
        StatementSnapshot mine = read.snapshotOf(target.database());
        return includeOwnStatements ? mine : mine.withoutRoles(ownRoles(target));
    }

    private List<Map<String, Object>> read(NativeTarget target, StatementsExtension found, boolean wholeInstance)
            throws SQLException {
        try {
            return target.sql().query(found.statisticsSql(includeOwnStatements, wholeInstance));
        } catch (SQLException e) {
            if (StatementsExtension.CHANGED_STATES.contains(e.getSQLState())) {
                extension.forget(); // dropped, moved or updated: look it up again on the next tick
                previous = null;
                taken = null;
            }
            throw e;
        }
    }


    private Set<String> ownRoles(NativeTarget target) throws SQLException {
        if (ownRoles == null) {
            ownRoles = OwnRoles.of(target.sql());
        }
        return ownRoles;
    }

    /** The entries of the previous read (the state this collector holds). */
    int heldEntries() {
        return previous == null ? 0 : previous.entries().size();
    }
}
