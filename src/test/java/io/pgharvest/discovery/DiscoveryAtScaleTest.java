package io.pgharvest.discovery;

import io.pgharvest.kind.continuous.ContinuousDiscoveryTest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.model.DiscoveryStatus;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 200 databases on one instance behind one continuous-discovery source: 200 reapers, but the
 * instance-level metric and the fanned-out one are read once per interval for the whole
 * instance, counted by the server itself (pg_stat_statements).
 */
class DiscoveryAtScaleTest {

    private static final int DATABASES = 200;
    private static final int INTERVAL_S = 5;
    private static final Duration WINDOW = Duration.ofSeconds(4 * INTERVAL_S);
    private static TestPostgres pg;

    @BeforeAll
    static void instanceWithManyDatabases() throws Exception {
        pg = TestPostgres.start(Map.of("shared_preload_libraries", "pg_stat_statements", "max_connections", "300"));
        pg.execute("postgres", "create extension pg_stat_statements");
        try (Connection c = pg.connect("postgres"); Statement st = c.createStatement()) {
            for (int i = 0; i < DATABASES; i++) {
                st.execute("create database " + name(i));
            }
        }
    }

    @AfterAll
    static void stopServer() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void twoHundredDatabasesCostOneInstanceLevelFetchPerInterval(@TempDir Path dir) throws Exception {
        ConfigStore store = TestStores.inDirectory(dir);
        store.putMetric(new MetricDefinition("instance_probe", "", Map.of(10,
                "select /* instance_probe_marker */ count(*) as backends from pg_stat_activity"), List.of("*"), true,
                NodeStatus.ANY, null, null, null));
        store.putSource(new Source("fleet", pg.connStr("postgres"), SourceKind.fromLabel("postgres-continuous-discovery"), null,
                true, null, Map.of("instance_probe", INTERVAL_S, "db_stats", INTERVAL_S), null, null, Map.of(), false,
                "^s_", null));
        var publisher = new RecordingPublisher();
        long started = System.nanoTime();
        ReaperService service = ContinuousDiscoveryTest.startEngine(store, publisher, Duration.ofSeconds(30));
        try {
            await().atMost(Duration.ofSeconds(120)).until(() -> service.discovery("fleet")
                    .map(d -> d.members().size() == DATABASES
                            && d.members().stream().allMatch(m -> m.state() == SessionState.CONNECTED))
                    .orElse(false));
            Duration allConnected = Duration.ofNanos(System.nanoTime() - started);
            // Every discovered source has joined the instance once it has delivered a round.
            publisher.await(m -> m.metric().equals("db_stats"), 2 * DATABASES, Duration.ofSeconds(60));

            pg.execute("postgres", "select pg_stat_statements_reset()");
            publisher.clear();
            var resetAt = java.time.Instant.now();
            long windowStart = System.nanoTime();
            long intervals = WINDOW.toSeconds() / INTERVAL_S;
            // The window: until the instance-level metric has been fetched for that many intervals.
            await().atMost(WINDOW.multipliedBy(3)).until(() -> publisher.all().stream()
                    .filter(m -> m.metric().equals("instance_probe") && m.time().isAfter(resetAt))
                    .map(m -> m.time()).distinct().count() >= intervals);
            Map<String, Long> calls = statementCalls();
            Duration window = Duration.ofNanos(System.nanoTime() - windowStart);
            var probes = publisher.all().stream().filter(m -> m.metric().equals("instance_probe")).toList();
            var dbStats = publisher.all().stream().filter(m -> m.metric().equals("db_stats")).toList();
            System.out.printf("%d databases, discovery + connect %d ms; in %d s (%d intervals of %d s):"
                    + " instance_probe fetched %d times, delivered %d times to %d sources;"
                    + " db_stats instance-wide reads %d, per-database reads %d, delivered %d times%n",
                    DATABASES, allConnected.toMillis(), window.toSeconds(), intervals, INTERVAL_S,
                    calls.get("probe"), probes.size(), probes.stream().map(m -> m.source()).distinct().count(),
                    calls.get("fanout"), calls.get("perdb"), dbStats.size());

            // A fetch may be under way while counting: at most one more than the intervals seen.
            assertThat(calls.get("probe")).as("instance-level fetches").isBetween(intervals, intervals + 1);
            assertThat(calls.get("fanout")).as("instance-wide db_stats reads").isBetween(intervals - 1, intervals + 1);
            assertThat(calls.get("perdb")).as("per-database db_stats reads").isZero();
            assertThat(probes.stream().map(m -> m.source()).collect(Collectors.toSet())).hasSize(DATABASES);
            assertThat(dbStats.stream().map(m -> m.source()).collect(Collectors.toSet())).hasSize(DATABASES);
            // Each source got its own database's row.
            assertThat(dbStats).allSatisfy(m -> assertThat(m.rows()).hasSize(1));
        } finally {
            service.stop();
        }
    }

    /** Calls counted by pg_stat_statements since the reset, over all databases. */
    private static Map<String, Long> statementCalls() {
        long probe = Long.parseLong(pg.queryString("postgres", """
                select coalesce(sum(calls), 0) from pg_stat_statements
                where query like '%instance_probe_marker%' and query not like '%pg_stat_statements%'"""));
        long fanOut = Long.parseLong(pg.queryString("postgres", """
                select coalesce(sum(calls), 0) from pg_stat_statements
                where query like '%fan_out_dbname%' and query like '%pg_stat_database%'
                  and query not like '%pg_stat_statements%'"""));
        long perDatabase = Long.parseLong(pg.queryString("postgres", """
                select coalesce(sum(calls), 0) from pg_stat_statements
                where query like '%from pg_stat_database%where datname = current_database()%'
                  and query not like '%pg_stat_statements%'"""));
        return Map.of("probe", probe, "fanout", fanOut, "perdb", perDatabase);
    }

    private static String name(int i) {
        return String.format("s_%03d", i);
    }

    static List<DiscoveryStatus.Member> members(ReaperService service) {
        return service.discovery("fleet").orElseThrow().members();
    }
}
