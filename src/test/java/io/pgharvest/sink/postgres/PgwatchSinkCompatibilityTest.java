package io.pgharvest.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.sink.MetricCatalog;
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

    /**
     * A storage database shaped like pgwatch's (written here from its documented layout: admin
     * tables, a metric table with a day partition and a row, an admin function pgharvest replaces).
     */
    private static final String PGWATCH_STORAGE = """
            CREATE SCHEMA admin;
            CREATE SCHEMA subpartitions;
            CREATE TABLE admin.storage_schema_type (schema_type text NOT NULL DEFAULT 'postgres',
                initialized_on timestamptz NOT NULL DEFAULT now(), CHECK (schema_type IN ('postgres', 'timescale')));
            INSERT INTO admin.storage_schema_type DEFAULT VALUES;
            CREATE TABLE admin.all_distinct_dbname_metrics (dbname text NOT NULL, metric text NOT NULL,
                created_on timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (dbname, metric));
            CREATE TABLE admin.config (key text PRIMARY KEY, value text NOT NULL);
            CREATE TABLE admin.migration (id bigint PRIMARY KEY, version text NOT NULL);
            CREATE TABLE admin.metrics_template (time timestamptz NOT NULL DEFAULT now(), dbname text NOT NULL,
                data jsonb NOT NULL, tag_data jsonb, CHECK (false));
            CREATE INDEX ON admin.metrics_template (dbname, time);
            CREATE FUNCTION admin.get_top_level_metric_tables(OUT table_name text) RETURNS SETOF text
                LANGUAGE sql AS $$ SELECT c.oid::regclass::text FROM pg_class c
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
                AND obj_description(c.oid, 'pg_class') = 'pgwatch-generated-metric-lvl' ORDER BY 1 $$;
            CREATE FUNCTION admin.ensure_dummy_metrics_table(metric text) RETURNS boolean
                LANGUAGE sql AS $$ SELECT NULL::boolean $$;
            CREATE TABLE public.db_stats (LIKE admin.metrics_template INCLUDING INDEXES) PARTITION BY RANGE (time);
            COMMENT ON TABLE public.db_stats IS 'pgwatch-generated-metric-lvl';
            CREATE TABLE subpartitions.db_stats_old PARTITION OF public.db_stats
                FOR VALUES FROM ('2020-01-01 00:00+00') TO ('2020-01-02 00:00+00');
            COMMENT ON TABLE subpartitions.db_stats_old IS 'pgwatch-generated-metric-time-lvl';
            INSERT INTO public.db_stats VALUES ('2020-01-01 12:00+00', 'by-pgwatch', '{"numbackends": 3}', NULL);
            INSERT INTO admin.all_distinct_dbname_metrics (dbname, metric) VALUES ('by-pgwatch', 'db_stats');
            """;

    @Test
    void anExistingPgwatchStorageDatabaseIsTakenOverWithItsData() throws Exception {
        newDatabase();
        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            s.execute(PGWATCH_STORAGE);
        }
        PostgresSink sink = open(MetricCatalog.empty());
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        sink.write(List.of(measurement("by-pgharvest", "db_stats", now)));

        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT dbname FROM public.db_stats ORDER BY time"))
                    .containsExactly("by-pgwatch", "by-pgharvest");
            assertThat(rows(s, "SELECT admin.ensure_dummy_metrics_table('wal')")).containsExactly("t");
            assertThat(rows(s, "SELECT admin.drop_old_time_partitions('1 day')")).containsExactly("1");
            assertThat(rows(s, "SELECT dbname FROM public.db_stats")).containsExactly("by-pgharvest");
            assertThat(rows(s, "SELECT version || ' ' || description FROM admin.pgharvest_schema_history"
                    + " ORDER BY installed_rank")).containsExactly("1 pgwatch storage schema adopted",
                    "2 pgwatch admin functions");
        }
    }

    @Test
    void aPgwatchStorageDatabaseOnTimescaleIsRefusedNamingTheLayout() throws Exception {
        newDatabase();
        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            s.execute(PGWATCH_STORAGE.replace("DEFAULT 'postgres'", "DEFAULT 'timescale'"));
        }
        PostgresSink sink = open(MetricCatalog.empty());

        assertThatThrownBy(() -> sink.write(List.of(measurement("x", "db_stats", Instant.now()))))
                .isInstanceOf(SQLException.class).hasMessageContaining("'timescale' layout");
        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT count(*) FROM public.db_stats")).containsExactly("1");
            assertThat(rows(s, "SELECT to_regclass('admin.pgharvest_schema_history') IS NULL")).containsExactly("t");
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
        newDatabase();
        return open(catalog);
    }

    private void newDatabase() {
        database = "sink_compat_" + (++databases) + "_" + Long.toHexString(System.nanoTime());
        PG.createDatabase(database);
    }

    private PostgresSink open(MetricCatalog catalog) {
        PostgresSink sink = PostgresSink.create("pgharvest.sinks[0]", "pg", settings(PG.connStr(database)), THREADS, catalog,
                Clock.systemUTC());
        sinks.add(sink);
        return sink;
    }

    private static PostgresSinkProperties settings(String url) {
        return PostgresSinkProperties.of(url).withRetention(Duration.ZERO);
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
