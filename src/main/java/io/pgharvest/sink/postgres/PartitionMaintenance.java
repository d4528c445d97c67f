package io.pgharvest.sink.postgres;

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
 * The storage database's periodic upkeep, on its own virtual thread and connection so it never
 * delays a batch: creates partitions ahead of time for every metric table, drops partitions that
 * lie entirely before the retention horizon, and brings the dashboards' source/metric listing in
 * line with the data that is left. Runs a minute after start (or after one interval, if shorter)
 * and then every interval. A failed run (the storage busy or down, a pool timeout under load) is
 * retried with capped back-off ({@link #RETRY}, doubling, never beyond the interval), not only
 * an interval later: partitions ahead must exist before the writes need them.
 */
final class PartitionMaintenance {

    private static final Logger log = LoggerFactory.getLogger(PartitionMaintenance.class);
    /** First retry after a failed run. */
    static final Duration RETRY = Duration.ofSeconds(5);

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
    private Thread thread;

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
        thread = Thread.ofVirtual().name("sink-" + sinkName + "-maintenance").start(this::loop);
    }

    void stop() {
        stopSignal.countDown();
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
        try {
            // Not at once: the first writes create what they need, and start-up stays quiet.
            if (stopSignal.await(Math.min(interval.toMillis(), 60_000), TimeUnit.MILLISECONDS)) {
                return;
            }
            var retries = new Backoff(RETRY.compareTo(interval) < 0 ? RETRY : interval, interval);
            int failures = 0;
            Duration next;
            do {
                try {
                    Result result = runOnce();
                    failures = 0;
                    next = interval;
                    if (result.createdPartitions() > 0 || !result.droppedPartitions().isEmpty()) {
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
        }
    }

    /** One maintenance pass; package-private so tests can run it on demand. */
    Result runOnce() throws SQLException {
        schema.ensure();
        tables.forget(); // retention and other instances change partitions underneath
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                List<String> metricTables = metricTables(c);
                int created = tables.createAhead(c, metricTables, clock.instant());
                List<String> dropped = retention.isZero() ? List.of() : dropExpired(c);
                int listing = refreshListing(c, metricTables);
                return new Result(created, dropped, listing);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
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
