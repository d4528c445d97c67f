package io.pgharvest.sink.postgres;

import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.SinkThreads;
import io.pgharvest.support.Backoff;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the table of every metric the sources select as soon as a source is added or its
 * selection changes, before the metric's first row, as pgwatch's sink does: pgwatch's dashboards
 * then show an empty panel instead of "relation does not exist" for a metric that has returned
 * nothing yet (no replication slots, no function calls). Own thread and connection; while
 * the storage is down it retries with capped back-off, and it never blocks a batch: a table whose
 * lock another transaction holds (the writer creating it for its batch) is skipped, never waited
 * for, and confirmed a second later.
 */
final class SelectedTables {

    private static final Logger log = LoggerFactory.getLogger(SelectedTables.class);
    /** Also re-checked this often without a change: a table may have been dropped by hand. */
    private static final Duration RECHECK = Duration.ofMinutes(5);
    private static final Backoff RETRY = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));
    /** Pause before confirming the tables that were locked by another transaction. */
    private static final Duration BUSY_RETRY = Duration.ofSeconds(1);

    private final String sinkName;
    private final DataSource dataSource;
    private final PartitionMaintenance.SchemaCheck schema;
    private final MetricTables tables;
    private final MetricCatalog catalog;
    private final Clock clock;
    private final Set<String> created = new HashSet<>();
    private volatile boolean stopping;
    /** Tables the last pass left to another transaction; loop thread only. */
    private int busyTables;
    private Thread thread;

    SelectedTables(String sinkName, DataSource dataSource, PartitionMaintenance.SchemaCheck schema,
            MetricTables tables, MetricCatalog catalog, Clock clock) {
        this.sinkName = sinkName;
        this.dataSource = dataSource;
        this.schema = schema;
        this.tables = tables;
        this.catalog = catalog;
        this.clock = clock;
    }

    void start() {
        if (thread != null) {
            throw new IllegalStateException("table creation of sink " + sinkName + " was already started");
        }
        thread = SinkThreads.of(sinkName, "tables").start(this::loop);
    }

    void stop() {
        stopping = true;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void loop() {
        long seen = -1;
        int failures = 0;
        try {
            while (!stopping) {
                try {
                    createMissing(catalog.selectedStorageNames());
                    failures = 0;
                } catch (SQLException | RuntimeException e) {
                    if (stopping) {
                        return;
                    }
                    if (++failures == 1) {
                        log.warn("Sink {}: cannot create the tables of the selected metrics yet, retrying: {}",
                                sinkName, e.getMessage());
                    }
                    Thread.sleep(RETRY.after(failures));
                    continue;
                }
                if (busyTables > 0) {
                    // Tables another transaction was preparing: confirm them shortly, without waiting on it.
                    Thread.sleep(BUSY_RETRY);
                    continue;
                }
                long next = catalog.awaitSelectionChange(seen, RECHECK);
                if (next == seen) {
                    created.clear(); // nothing changed for a while: check every table again
                }
                seen = next;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Creates the tables (and their current partitions) of {@code names} not created before. */
    int createMissing(Set<String> names) throws SQLException {
        var missing = new TreeSet<>(names);
        missing.removeAll(created);
        if (missing.isEmpty()) {
            return 0;
        }
        schema.ensure();
        var busy = new ArrayList<String>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                tables.createAhead(c, missing, clock.instant(), busy);
            } catch (SQLException e) {
                c.rollback();
                tables.forget();
                throw e;
            }
        }
        missing.removeAll(busy);
        created.addAll(missing);
        busyTables = busy.size();
        log.debug("Sink {}: created or confirmed the tables of {}; busy elsewhere: {}", sinkName, missing, busy);
        return missing.size();
    }
}
