package io.pgharvest.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.SinkProperties;
import io.pgharvest.sink.SinkType;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/** What pgwatch's dashboards and operators expect of a storage database, on pgharvest's sink. */
class PgwatchSinkCompatibilityTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final SinkPoolThreads THREADS = new SinkPoolThreads();
    private static int databases;

    private final List<PostgresSink> sinks = new ArrayList<>();
    private String database;

    @AfterAll
    static void threads() {
        THREADS.close();
    }

    @AfterEach
    void closeSinks() {
        sinks.forEach(PostgresSink::close);
    }

    @Test
    void theTableOfEverySelectedMetricExistsBeforeItsFirstRowAndFollowsSelectionChanges() throws Exception {
        var catalog = new ChangingCatalog(Set.of("instance_up", "replication_slots"));
        sink(catalog);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(metricTables()).contains("instance_up", "replication_slots"));
        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT count(*) FROM public.replication_slots")).containsExactly("0");
        }

        catalog.select(Set.of("instance_up", "replication_slots", "sproc_stats"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(metricTables()).contains("sproc_stats"));
    }

    @Test
    void pgwatchsAdminFunctionsWorkOnPgharvestsLayout() throws Exception {
        PostgresSink sink = sink(MetricCatalog.empty());
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        Instant old = now.minus(Duration.ofDays(10));
        sink.write(List.of(
                measurement("db-one", "db_stats", old), measurement("db-one", "db_stats", now),
                measurement("db-two", "db_stats", now), measurement("db-one", "wal", old)));

        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT admin.ensure_dummy_metrics_table('stat_lock')")).containsExactly("t");
            assertThat(rows(s, "SELECT admin.ensure_dummy_metrics_table('stat_lock')")).containsExactly("f");
            assertThat(rows(s, "SELECT count(*) FROM public.stat_lock")).containsExactly("0");
            assertThat(rows(s, "SELECT table_name FROM admin.get_top_level_metric_tables()"))
                    .containsExactly("db_stats", "stat_lock", "wal");

            List<String> old5 = rows(s, "SELECT * FROM admin.get_old_time_partitions('5 days')");
            assertThat(old5).hasSize(2).allMatch(p -> p.startsWith("subpartitions."));
            assertThat(rows(s, "SELECT * FROM admin.get_old_time_partitions('5 days', 'postgres')")).isEqualTo(old5);
            assertThatThrownBy(() -> s.executeQuery("SELECT * FROM admin.get_old_time_partitions('5 days', 'timescale')"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("not supported");
            assertThat(rows(s, "SELECT admin.drop_old_time_partitions('5 days')")).containsExactly("2");
            assertThat(rows(s, "SELECT count(*) FROM public.db_stats")).containsExactly("2");
            assertThat(rows(s, "SELECT count(*) FROM public.wal")).containsExactly("0");

            // the listing still names (db-one, wal), whose rows were dropped, and lacks a hand-made pair
            s.execute("INSERT INTO admin.all_distinct_dbname_metrics (dbname, metric) VALUES ('gone', 'no_table')");
            s.execute("DELETE FROM admin.all_distinct_dbname_metrics WHERE dbname = 'db-two'");
            assertThat(rows(s, "SELECT admin.maintain_unique_sources()")).containsExactly("3");
            assertThat(rows(s, "SELECT dbname || ' ' || metric FROM admin.all_distinct_dbname_metrics ORDER BY 1"))
                    .containsExactly("db-one db_stats", "db-two db_stats");

            assertThat(rows(s, "SELECT admin.truncate_all_metric_tables()")).containsExactly("3");
            assertThat(rows(s, "SELECT count(*) FROM public.db_stats")).containsExactly("0");
            s.execute("CALL admin.drop_all_metric_tables()");
            assertThat(rows(s, "SELECT count(*) FROM admin.get_top_level_metric_tables()")).containsExactly("0");
        }
    }

    private static Measurement measurement(String source, String metric, Instant time) {
        return new Measurement(source, metric, time, List.of(new Measurement.Row(Map.of("x", 1L), null)), Map.of());
    }

    private List<String> metricTables() throws SQLException {
        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            return rows(s, "SELECT table_name FROM admin.get_top_level_metric_tables()");
        } catch (SQLException e) {
            return List.of(); // schema not created yet
        }
    }

    private PostgresSink sink(MetricCatalog catalog) {
        database = "sink_compat_" + (++databases) + "_" + Long.toHexString(System.nanoTime());
        PG.createDatabase(database);
        PostgresSink sink = PostgresSink.create("pgharvest.sinks[0]", settings(PG.connStr(database)), THREADS, catalog,
                Clock.systemUTC());
        sinks.add(sink);
        return sink;
    }

    private static SinkProperties settings(String url) {
        return new SinkProperties(SinkType.POSTGRES, "pg", url, null, null, null, null, 500, Duration.ofSeconds(1),
                10_000, DataSize.ofMegabytes(64), Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(10),
                Duration.ZERO, Duration.ofDays(1), 2, Duration.ofHours(1), Duration.ofMinutes(10),
                DataSize.ofMegabytes(64), 5);
    }

    private static List<String> rows(Statement s, String sql) throws SQLException {
        var result = new ArrayList<String>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                result.add(rs.getString(1));
            }
        }
        return result;
    }

    /** A selection the test changes, with the wake-up a config store gives. */
    private static final class ChangingCatalog implements MetricCatalog {

        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final AtomicReference<Set<String>> selected;
        private final AtomicLong index = new AtomicLong();

        ChangingCatalog(Set<String> initial) {
            selected = new AtomicReference<>(initial);
        }

        void select(Set<String> names) {
            lock.lock();
            try {
                selected.set(names);
                index.incrementAndGet();
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public Optional<MetricDefinition> byStorageName(String storageName) {
            return Optional.empty();
        }

        @Override
        public Set<String> selectedStorageNames() {
            return selected.get();
        }

        @Override
        public long awaitSelectionChange(long seen, Duration timeout) throws InterruptedException {
            lock.lock();
            try {
                long deadline = System.nanoTime() + timeout.toNanos();
                while (index.get() <= seen) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    changed.awaitNanos(left);
                }
                return index.get();
            } finally {
                lock.unlock();
            }
        }
    }
}
