package io.pgharvest.sink.postgres;

import io.pgharvest.sink.SinkThreads;
import io.pgharvest.support.Backoff;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage database's periodic upkeep, on its own thread and connection so it never
 * delays a batch: creates partitions ahead of time for every metric table, drops partitions that
 * lie entirely before the retention horizon, and brings the dashboards' source/metric listing in
 * line with the data that is left. The first run waits for a minute after start (or one interval,
 * if shorter) and for the sink's first written batch, but for no longer than one interval: at
 * start-up the writer creates what its first batches need, and maintenance (which locks every
 * metric table in turn) would only compete with it. Then it runs every interval. A failed run (the storage busy or down, a pool timeout under load) is
 * retried with capped back-off ({@link #RETRY}, doubling, never beyond the interval), not only
 * an interval later: partitions ahead must exist before the writes need them.
 *
 * <p>Several pgharvest instances writing to one storage database (a fleet, docs/fleet.md)
 * maintain it once, not once each: the instance whose maintenance session holds the
 * {@linkplain #MAINTENANCE_LOCK advisory lock} is the maintainer and keeps that session (and so
 * the lock) between runs; the others try for the lock at each of their runs and skip while they
 * do not get it. When the maintainer stops or dies its session ends, and the next instance to try
 * takes over within one interval.
 */
final class PartitionMaintenance {

    private static final Logger log = LoggerFactory.getLogger(PartitionMaintenance.class);
    /** First retry after a failed run. */
    static final Duration RETRY = Duration.ofSeconds(5);
    /** Session advisory lock key of the storage database's maintainer ("pgharvest" + "maint"). */
    static final long MAINTENANCE_LOCK = 0x7067_6876_6d61_696eL;

    /** Creates or upgrades the storage schema before maintenance touches it. */
    @FunctionalInterface
    interface SchemaCheck {
        void ensure() throws SQLException;
    }

    /** What one run did. */
    record Result(int createdPartitions, List<String> droppedPartitions, int listingChanges) {
    }

    private final String sinkName;
    private final DataSource dataSource;
    private final SchemaCheck schema;
    private final MetricTables tables;
    private final Duration retention;
    private final Duration interval;
    private final Clock clock;
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    /** Counted down by the sink's first committed batch (and by {@link #stop}). */
    private final CountDownLatch firstWrite = new CountDownLatch(1);
    private Thread thread;
    /** The maintenance session while this instance is the maintainer; it holds the lock. Loop thread only. */
    private Connection maintainerSession;
    private boolean maintainerLogged;

    PartitionMaintenance(String sinkName, DataSource dataSource, SchemaCheck schema, MetricTables tables,
            Duration retention, Duration interval, Clock clock) {
        this.sinkName = sinkName;
        this.dataSource = dataSource;
        this.schema = schema;
        this.tables = tables;
        this.retention = retention;
        this.interval = interval;
        this.clock = clock;
    }

    void start() {
        if (thread != null) {
            throw new IllegalStateException("maintenance of sink " + sinkName + " was already started");
        }
        thread = SinkThreads.of(sinkName, "maintenance").start(this::loop);
    }

    /** The sink committed a batch: the first maintenance run need not wait for one any more. */
    void firstBatchWritten() {
        firstWrite.countDown(); // a no-op once counted down
    }

    void stop() {
        stopSignal.countDown();
        firstWrite.countDown();
        if (thread != null) {
            // The signal ends the wait between passes; only a pass still running after that is
            // interrupted (which closes its session). Interrupting a waiting loop would also close
            // the session of its final unlock, and the pool would log it as broken on every stop.
            try {
                if (!thread.join(Duration.ofSeconds(10))) {
                    thread.interrupt();
                    thread.join(Duration.ofSeconds(5));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (thread == null || !thread.isAlive()) {
            releaseMaintainer(); // the loop's own release, for passes run without it
        }
    }

    /**
     * Runs a pass if this instance is the fleet's maintainer (holds or now gets the lock);
     * otherwise does nothing and returns null.
     */
    Result runIfMaintainer() throws SQLException {
        schema.ensure(); // before a session is held: the migration must never wait for this thread's connection
        if (maintainerSession != null && !maintainerSession.isValid(5)) {
            releaseMaintainer(); // the session broke: the lock went with it
        }
        if (maintainerSession == null) {
            Connection c = dataSource.getConnection();
            boolean locked = false;
            try (PreparedStatement s = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
                s.setLong(1, MAINTENANCE_LOCK);
                try (ResultSet rs = s.executeQuery()) {
                    locked = rs.next() && rs.getBoolean(1);
                }
            } finally {
                if (!locked) {
                    c.close();
                }
            }
            if (!locked) {
                if (!maintainerLogged) {
                    log.info("Sink {}: another pgharvest instance maintains the storage database", sinkName);
                    maintainerLogged = true;
                }
                return null;
            }
            maintainerSession = c;
            log.info("Sink {}: this instance maintains the storage database for the fleet", sinkName);
            maintainerLogged = false;
        }
        return runOnce(maintainerSession);
    }

    /** Gives the lock up and the session back to the pool (a pooled session keeps session locks). */
    private void releaseMaintainer() {
        Connection c = maintainerSession;
        maintainerSession = null;
        if (c == null) {
            return;
        }
        try (c) {
            if (!c.isClosed()) {
                c.setAutoCommit(true);
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT pg_advisory_unlock_all()");
                }
            }
        } catch (SQLException e) {
            log.debug("Sink {}: releasing the maintenance session: {}", sinkName, e.getMessage());
        }
    }

    private void loop() {
        try {
            // Not at once: the first writes create what they need, and start-up stays quiet.
            long delay = Math.min(interval.toMillis(), 60_000);
            if (stopSignal.await(delay, TimeUnit.MILLISECONDS)) {
                return;
            }
            firstWrite.await(interval.toMillis() - delay, TimeUnit.MILLISECONDS);
            if (stopSignal.getCount() == 0) {
                return;
            }
            var retries = new Backoff(RETRY.compareTo(interval) < 0 ? RETRY : interval, interval);
            int failures = 0;
            Duration next;
            do {
                try {
                    Result result = runIfMaintainer();
                    failures = 0;
                    next = interval;
                    if (result != null && (result.createdPartitions() > 0 || !result.droppedPartitions().isEmpty())) {
                        log.info("Sink {}: maintenance created {} partitions, dropped {} past retention",
                                sinkName, result.createdPartitions(), result.droppedPartitions().size());
                    }
                } catch (SQLException | RuntimeException e) {
                    if (stopSignal.getCount() == 0) {
                        return;
                    }
                    next = retries.after(++failures);
                    log.warn("Sink {}: storage maintenance failed, next attempt in {}: {}", sinkName, next,
                            e.getMessage());
                }
            } while (!stopSignal.await(next.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            releaseMaintainer();
        }
    }

    /** One maintenance pass, whoever maintains; package-private so tests can run it on demand. */
    Result runOnce() throws SQLException {
        schema.ensure();
        try (Connection c = dataSource.getConnection()) {
            return runOnce(c);
        }
    }

    private Result runOnce(Connection c) throws SQLException {
        tables.forget(); // retention and other instances change partitions underneath
        c.setAutoCommit(false);
        try {
            List<String> metricTables = metricTables(c);
            // A table being prepared by a writer right now gets its partitions from that writer.
            int created = tables.createAhead(c, metricTables, clock.instant(), new ArrayList<>());
            List<String> dropped = retention.isZero() ? List.of() : dropExpired(c);
            int listing = refreshListing(c, metricTables);
            // The maintainer's session then idles between runs outside any transaction.
            c.setAutoCommit(true);
            return new Result(created, dropped, listing);
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        }
    }

    private static List<String> metricTables(Connection c) throws SQLException {
        var names = new ArrayList<String>();
        try (PreparedStatement s = c.prepareStatement("SELECT relname FROM pg_class WHERE relnamespace = "
                + "'public'::regnamespace AND relkind = 'p' AND obj_description(oid, 'pg_class') = ? ORDER BY 1")) {
            s.setString(1, MetricTables.METRIC_COMMENT);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        c.commit();
        return names;
    }

    /** Drops partitions whose whole range ends before now - retention, each in its own transaction. */
    private List<String> dropExpired(Connection c) throws SQLException {
        var expired = new ArrayList<String>();
        try (PreparedStatement s = c.prepareStatement("SELECT partition FROM admin.metric_time_partitions "
                + "WHERE range_end <= now() - make_interval(secs => ?) ORDER BY range_end")) {
            s.setLong(1, retention.toSeconds());
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    expired.add(rs.getString(1));
                }
            }
        }
        c.commit();
        var dropped = new ArrayList<String>();
        for (String partition : expired) {
            try (Statement s = c.createStatement()) {
                // Dropping a partition locks its parent; never queue writers behind it for long.
                s.execute("SET LOCAL lock_timeout = '5s'");
                s.execute("DROP TABLE IF EXISTS subpartitions." + PartitionLayout.quoteIdentifier(partition));
                c.commit();
                dropped.add(partition);
            } catch (SQLException e) {
                c.rollback();
                log.warn("Sink {}: could not drop expired partition {}: {}", sinkName, partition, e.getMessage());
            }
        }
        return dropped;
    }

    /** Makes admin.all_distinct_dbname_metrics list exactly the (source, metric) pairs with data. */
    private static int refreshListing(Connection c, List<String> metricTables) throws SQLException {
        int changes = 0;
        for (String table : metricTables) {
            List<String> dbnames = distinctDbnames(c, table);
            try (PreparedStatement delete = c.prepareStatement("DELETE FROM admin.all_distinct_dbname_metrics "
                    + "WHERE metric = ? AND NOT (dbname = ANY (?))");
                    PreparedStatement insert = c.prepareStatement("INSERT INTO admin.all_distinct_dbname_metrics "
                            + "(dbname, metric) SELECT unnest(?::text[]), ? ON CONFLICT DO NOTHING")) {
                delete.setString(1, table);
                delete.setArray(2, c.createArrayOf("text", dbnames.toArray()));
                changes += delete.executeUpdate();
                insert.setArray(1, c.createArrayOf("text", dbnames.toArray()));
                insert.setString(2, table);
                changes += insert.executeUpdate();
            }
            c.commit();
        }
        try (PreparedStatement s = c.prepareStatement(
                "DELETE FROM admin.all_distinct_dbname_metrics WHERE NOT (metric = ANY (?))")) {
            s.setArray(1, c.createArrayOf("text", metricTables.toArray()));
            changes += s.executeUpdate();
        }
        c.commit();
        return changes;
    }

    /** Distinct dbname values by skipping through the (dbname, time) index instead of a full scan. */
    private static List<String> distinctDbnames(Connection c, String table) throws SQLException {
        String t = "public." + PartitionLayout.quoteIdentifier(table);
        var names = new ArrayList<String>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("WITH RECURSIVE d(dbname) AS ("
                        + " (SELECT dbname FROM " + t + " ORDER BY dbname LIMIT 1)"
                        + " UNION ALL"
                        + " SELECT (SELECT x.dbname FROM " + t + " x WHERE x.dbname > d.dbname"
                        + " ORDER BY x.dbname LIMIT 1) FROM d WHERE d.dbname IS NOT NULL)"
                        + " SELECT dbname FROM d WHERE dbname IS NOT NULL")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }
}
