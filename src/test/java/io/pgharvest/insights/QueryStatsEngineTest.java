package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.Source;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.nativemetric.ServerLocality;
import io.pgharvest.reaper.ReaperProperties;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * query_stats and query_texts end to end: selected by a source, run by the engine on the source's
 * own session (their SQL passes the native-query boundary), delivered with the source's tags, a
 * statement's text once; a database without
 * the extension shows the metric unavailable with the reason and the source's other metrics go on.
 */
class QueryStatsEngineTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void theEngineDeliversTheCallsOfAStatementAndNothingOnTheBaseline(@TempDir Path dir) throws Exception {
        pg.createDatabase("insights_engine");
        pg.execute("insights_engine", "create extension if not exists pg_stat_statements");
        var publisher = new RecordingPublisher();
        ReaperService service = start(dir, publisher, "insights_engine");
        try {
            publisher.await(m -> m.metric().equals("db_size"), 2, Duration.ofSeconds(20));
            try (Connection work = pg.connect("insights_engine");
                    PreparedStatement st = work.prepareStatement("select ?::int + 41 as engine_probe")) {
                for (int i = 0; i < 13; i++) {
                    st.setInt(1, i);
                    st.executeQuery().close();
                }
            }
            String queryId = pg.queryString("insights_engine", "select queryid::text from pg_stat_statements"
                    + " where query like '%as engine_probe'");
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(calls(publisher.all(), queryId)).isEqualTo(13));
            assertThat(publisher.all()).filteredOn(m -> m.metric().equals("query_stats"))
                    .allSatisfy(m -> assertThat(m.tags()).containsEntry("env", "insights-test"));
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(publisher.all())
                    .filteredOn(m -> m.metric().equals("query_texts")).flatMap(Measurement::rows)
                    .filteredOn(r -> queryId.equals(r.tags().get("queryid")))
                    .extracting(r -> r.values().get("query")).containsExactly("select $1::int + $2 as engine_probe"));
        } finally {
            service.stop();
        }
    }

    @Test
    void withoutTheExtensionTheMetricIsUnavailableAndTheOthersGoOn(@TempDir Path dir) throws Exception {
        pg.createDatabase("insights_engine_bare");
        var publisher = new RecordingPublisher();
        ReaperService service = start(dir, publisher, "insights_engine_bare");
        try {
            publisher.await(m -> m.metric().equals("db_size"), 2, Duration.ofSeconds(20));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                MetricRuntimeStatus status = service.status("insights").orElseThrow().metrics().stream()
                        .filter(m -> m.name().equals("query_stats")).findFirst().orElseThrow();
                assertThat(status.lane()).isEqualTo(MetricLane.UNAVAILABLE);
                assertThat(status.lastError()).contains("pg_stat_statements is not installed in database"
                        + " insights_engine_bare");
            });
            assertThat(publisher.all()).noneMatch(m -> m.metric().equals("query_stats"));
        } finally {
            service.stop();
        }
    }

    private static long calls(List<Measurement> measurements, String queryId) {
        return measurements.stream().filter(m -> m.metric().equals("query_stats"))
                .flatMap(m -> m.rows().stream()).filter(r -> queryId.equals(r.tags().get("queryid")))
                .mapToLong(r -> (Long) r.values().get("calls")).sum();
    }

    private static ReaperService start(Path dir, RecordingPublisher publisher, String database) {
        ConfigStore store = TestStores.inDirectory(dir);
        // The workload and the source log in as one role here, so pgharvest's own statements are
        // counted (by default they are left out: QueryStatsCollectorTest).
        var natives = new NativeMetricRegistry(List.of(new QueryStats(new QueryInsightsProperties(50, true)),
                new QueryTexts(new QueryInsightsProperties(50, true))),
                ServerLocality.system());
        var properties = new ReaperProperties(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(1),
                Duration.ofMinutes(1), Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofMinutes(1),
                Duration.ofMinutes(5), Duration.ofSeconds(5), false, 2, Duration.ofMinutes(2));
        var sessions = new SessionOpener(new SessionSettings(Duration.ofSeconds(2), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1)));
        var service = new ReaperService(ReaperService.Parts.of(store, publisher, new SimpleMeterRegistry(), properties,
                io.pgharvest.kind.TestEndpoints.of(sessions))
                .withNatives(natives));
        service.start();
        store.putSource(new Source("insights", pg.connStr(database), null, null, true, null,
                Map.of("query_stats", 1, "query_texts", 1, "db_size", 1), null, null, Map.of("env", "insights-test"), false, null,
                null));
        return service;
    }
}
