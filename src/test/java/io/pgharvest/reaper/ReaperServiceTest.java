package io.pgharvest.reaper;

import io.pgharvest.kind.TestEndpoints;
import io.pgharvest.reaper.schedule.EarlyStarts;
import io.pgharvest.reaper.tick.ReaperMeters;
import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.Source;
import io.pgharvest.store.ConfigChanges;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The service keeps one reaper per enabled source, in step with the store, disturbing no other. */
class ReaperServiceTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private ConfigStore store;
    private final RecordingPublisher publisher = new RecordingPublisher();
    private ReaperService service;

    @BeforeAll
    static void databases() {
        pg.createDatabase("service_a");
        pg.createDatabase("service_b");
    }

    @BeforeEach
    void startService(@TempDir Path dir) {
        store = TestStores.inDirectory(dir);
        store.putMetric(metric("ping", "select 1 as v"));
        store.putMetric(metric("pong", "select 2 as v"));
        var properties = new ReaperProperties(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(1),
                Duration.ofMinutes(1), Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofSeconds(5), false, 2, Duration.ofMinutes(2));
        service = new ReaperService(ReaperService.Parts.of(store, publisher, new SimpleMeterRegistry(), properties,
                TestEndpoints.of(ReaperTestKit.sessions())));
        service.start();
    }

    @AfterEach
    void stopService() {
        service.stop();
    }

    @Test
    void sourcesAddedChangedDisabledAndRemovedTakeEffectWithoutTouchingOthers() throws Exception {
        store.putSource(source("a", pg.connStr("service_a"), Map.of("ping", 1)));
        store.putSource(source("b", pg.connStr("service_b"), Map.of("ping", 1)));
        publisher.await(m -> m.source().equals("a") && m.metric().equals("ping"), 1, Duration.ofSeconds(5));
        publisher.await(m -> m.source().equals("b") && m.metric().equals("ping"), 1, Duration.ofSeconds(5));
        int pidA = backendPid("service_a");
        int pidB = backendPid("service_b");

        // A new metric for a: applied to the running reaper, same session, b untouched.
        store.putSource(source("a", pg.connStr("service_a"), Map.of("ping", 1, "pong", 1)));
        publisher.await(m -> m.source().equals("a") && m.metric().equals("pong"), 1, Duration.ofSeconds(3));
        assertThat(backendPid("service_a")).isEqualTo(pidA);
        assertThat(backendPid("service_b")).isEqualTo(pidB);

        // A changed connection string reconnects a, and only a.
        store.putSource(source("a", pg.connStr("service_a") + "?connect_timeout=3", Map.of("ping", 1, "pong", 1)));
        awaitBackendOtherThan("service_a", pidA);
        assertThat(backendPid("service_b")).isEqualTo(pidB);

        // Disabled: the reaper stops and its session closes.
        Source a = store.snapshot().sources().get("a");
        store.putSource(new Source("a", a.connStr(), a.kind(), a.group(), false, null, a.metrics(), null, null,
                a.tags(), false, null, null));
        awaitNoBackend("service_a");
        assertThat(service.status("a")).isEmpty();

        store.deleteSource("b");
        awaitNoBackend("service_b");
        assertThat(service.reaperCount()).isZero();
    }

    @Test
    void aNewSourceIsCollectedAtOnceNotAtItsNextGridPoint() throws Exception {
        // Hourly: the source's next grid point is anywhere up to an hour away (its phase).
        store.putSource(source("hourly", pg.connStr("service_a"), Map.of("ping", 3600)));

        publisher.await(m -> m.source().equals("hourly") && m.metric().equals("ping"), 1, Duration.ofSeconds(10));
        // Then on the grid: the next run is the source's next grid point, within the hour.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            var ping = service.status("hourly").orElseThrow().metrics().stream()
                    .filter(m -> m.name().equals("ping")).findFirst().orElseThrow();
            assertThat(ping.nextDue()).isAfter(Instant.now()).isBefore(Instant.now().plus(Duration.ofHours(1)));
        });
    }

    @Test
    void whenManySourcesOfOneServerStartTogetherOnlyAFewCollectAtOnceAndTheOthersKeepTheirGridPoint()
            throws Exception {
        // Daily: no source's own grid point comes up within the test's seconds.
        var sources = new java.util.ArrayList<Source>();
        for (int i = 0; i < 20; i++) {
            sources.add(source("daily_" + i, pg.connStr("service_a"), Map.of("ping", 86_400)));
        }
        store.putAll(new ConfigChanges(sources, List.of(), List.of()), false);

        publisher.await(m -> m.source().startsWith("daily_") && m.metric().equals("ping"), EarlyStarts.PER_SERVER,
                Duration.ofSeconds(15));
        // The others log in once the early first ticks are over, and do not collect.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(sources).allSatisfy(s -> assertThat(service.status(s.name()).orElseThrow().state())
                        .isEqualTo(io.pgharvest.model.SessionState.CONNECTED)));
        Thread.sleep(1000);
        assertThat(publisher.all().stream().filter(m -> m.source().startsWith("daily_"))
                .map(Measurement::source).distinct()).hasSize(EarlyStarts.PER_SERVER);
        assertThat(service.reaperCount()).isEqualTo(20);
    }

    @Test
    void instanceLevelMetricsAreFetchedOncePerInstanceAndShared() throws Exception {
        store.putMetric(new MetricDefinition("server_wide", "", Map.of(10, "select count(*) as backends from pg_stat_activity"),
                List.of("*"), true, NodeStatus.ANY, null, null, null));
        store.putSource(source("shared_a", pg.connStr("service_a"), Map.of("server_wide", 3)));
        store.putSource(source("shared_b", pg.connStr("service_b"), Map.of("server_wide", 3)));
        var measurements = publisher.await(m -> m.metric().equals("server_wide"), 6, Duration.ofSeconds(15));

        // Each source reports every interval, but the instance was queried for only one of them:
        // a shared result carries the time it was fetched, so both sources show the same times.
        var timesA = measurements.stream().filter(m -> m.source().equals("shared_a")).map(m -> m.time()).toList();
        var timesB = measurements.stream().filter(m -> m.source().equals("shared_b")).map(m -> m.time()).toList();
        assertThat(timesA).isNotEmpty();
        assertThat(timesB).isNotEmpty();
        assertThat(Set.copyOf(timesA)).containsAnyElementsOf(timesB);
    }

    @Test
    void aMetricWithoutSqlForTheServerVersionIsReportedInStatusAndNeverRun() throws Exception {
        store.putMetric(new MetricDefinition("future_only", "", Map.of(99, "select 1 as v"), List.of("*"), false,
                NodeStatus.ANY, null, null, null));
        store.putSource(source("versioned", pg.connStr("service_a"), Map.of("future_only", 1, "ping", 1)));
        publisher.await(m -> m.source().equals("versioned") && m.metric().equals("ping"), 2, Duration.ofSeconds(5));
        var status = service.status("versioned").orElseThrow();
        var futureOnly = status.metrics().stream().filter(m -> m.name().equals("future_only")).findFirst().orElseThrow();
        assertThat(futureOnly.lane()).isEqualTo(MetricLane.NO_SQL);
        assertThat(publisher.of("versioned", "future_only")).isEmpty();
        assertThat(status.serverVersionNum()).isEqualTo(pg.serverVersionNum());
    }

    private static int backendPid(String database) throws Exception {
        String pid = pg.queryString("postgres", "select coalesce(max(pid), 0)::text from pg_stat_activity"
                + " where application_name = 'pgharvest' and datname = '" + database + "'");
        return Integer.parseInt(pid);
    }

    private static void awaitBackendOtherThan(String database, int oldPid) {
        org.awaitility.Awaitility.await("new session for " + database).atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50)).until(() -> backendPid(database), pid -> pid != oldPid && pid != 0);
    }

    private static void awaitNoBackend(String database) {
        org.awaitility.Awaitility.await("session of " + database + " closed").atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50)).until(() -> backendPid(database) == 0);
    }

    @Test
    void connectAttemptsToAServerThatNeverAnswersStartNoPlatformThreads() throws Exception {
        try (var silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            for (int i = 0; i < 5; i++) {
                store.putSource(source("silent" + i, "postgresql://postgres@127.0.0.1:" + silent.getLocalPort() + "/x",
                        Map.of("ping", 1)));
            }
            // The server accepts TCP (backlog) but never answers the login: attempts time out.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> java.util.stream.IntStream
                    .range(0, 5).allMatch(i -> service.status("silent" + i).map(st -> st.state() == SessionState.DISCONNECTED)
                            .orElse(false)));
            // pgjdbc's loginTimeout would have run each attempt on a platform thread of this name.
            assertThat(Thread.getAllStackTraces().keySet()).map(Thread::getName)
                    .noneMatch(n -> n.contains("PostgreSQL JDBC driver connection thread"));
        }
    }

    @Test
    void aSourceReEnabledWhileItsOldReaperStopsKeepsItsMeters() throws Exception {
        var registry = new SimpleMeterRegistry();
        var meters = new ReaperMeters(registry);
        var first = meters.forSource("again");
        var second = meters.forSource("again");
        meters.release(first);
        assertThat(registry.find("pgharvest.ticks").tag("source", "again").counter()).isNotNull();
        meters.release(second);
        assertThat(registry.find("pgharvest.ticks").tag("source", "again").counter()).isNull();
    }
}
