package io.pgharvest.operations.selfmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.RunningApp;
import io.pgharvest.testsupport.FreezableProxy;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * pgharvest's own trouble through the built-in rules, on real parts: a PostgreSQL sink whose server
 * is stopped spills, then drops past its small disk bound, and a source whose server stops
 * answering mid-tick stalls its reaper. Each raises its rule (on source {@code pgharvest:self},
 * from the rows pgharvest publishes about itself), and each resolves when the server is back or the
 * session gone. The same rows reach the sink once it is back: they take the normal pipeline.
 */
class SelfRulesOnAFailingSinkTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final Duration PATIENCE = Duration.ofSeconds(45);
    private static final String SELF = SelfMetrics.sourceName(null);

    @TempDir
    Path dataDir;

    @Test
    void aStoppedSinkServerSpillsAndDropsAFrozenSourceStallsItsReaperEachFiresAndResolves() throws Exception {
        PG.createDatabase("self_src");
        try (TestPostgres sinkServer = TestPostgres.start(Map.of());
                var proxy = new FreezableProxy(PG.host(), PG.port())) {
            sinkServer.createDatabase("self_sink");
            try (RunningApp app = RunningApp.start(dataDir, "--pgharvest.self-metrics.interval=500ms",
                    "--pgharvest.reaper.default-statement-timeout=2s",
                    "--pgharvest.sinks[0].type=postgres", "--pgharvest.sinks[0].name=history",
                    "--pgharvest.sinks[0].url=" + sinkServer.connStr("self_sink"),
                    "--pgharvest.sinks[0].batch-delay=100ms", "--pgharvest.sinks[0].disk-bound=16KB",
                    "--pgharvest.sinks[0].retry-max=1s")) {
                ApiClient api = app.api();
                // The pack's rules as shipped, with a for (and keep-firing) a test can wait for.
                override(api, "PgharvestSinkSpilling", "1s", "0s");
                override(api, "PgharvestSinkDropping", "0s", "1s");
                override(api, "PgharvestReaperStalled", "1s", "0s");
                created(api.post("/api/v1/sources", Map.of("name", "self-busy", "connStr", PG.connStr("self_src"),
                        "metrics", Map.of("db_stats", 1, "backends", 1, "settings", 1))));
                created(api.post("/api/v1/sources", Map.of("name", "self-frozen", "connStr",
                        "postgresql://" + TestPostgres.SUPERUSER + "@127.0.0.1:" + proxy.port() + "/self_src",
                        "metrics", Map.of("db_size", 1))));
                Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> storedSelfRows(sinkServer) > 0);

                long storedBefore = storedSelfRows(sinkServer);
                sinkServer.stop();
                JsonNode spilling = awaitAlert(api, "PgharvestSinkSpilling");
                assertThat(spilling.at("/labels/sink").asString()).isEqualTo("history");
                assertThat(spilling.at("/labels/severity").asString()).isEqualTo("warning");
                JsonNode dropping = awaitAlert(api, "PgharvestSinkDropping");
                assertThat(dropping.at("/labels/sink").asString()).isEqualTo("history");
                assertThat(dropping.at("/labels/severity").asString()).isEqualTo("critical");

                proxy.freeze();
                JsonNode stalled = awaitAlert(api, "PgharvestReaperStalled");
                assertThat(stalled.at("/labels/reaper").asString()).isEqualTo("self-frozen");
                assertThat(stalled.at("/annotations/summary").asString())
                        .isEqualTo("pgharvest's collector of self-frozen is stalled or failing (" + SELF + ")");

                sinkServer.start();
                awaitGone(api, "PgharvestSinkSpilling");
                awaitGone(api, "PgharvestSinkDropping");
                proxy.close(); // the frozen session breaks: the reaper reconnects, no longer stalled
                awaitGone(api, "PgharvestReaperStalled");
                Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> storedSelfRows(sinkServer) > storedBefore);
                assertThat(history(api)).containsSubsequence("PgharvestSinkSpilling firing", "PgharvestSinkSpilling resolved")
                        .containsSubsequence("PgharvestSinkDropping firing", "PgharvestSinkDropping resolved")
                        .containsSubsequence("PgharvestReaperStalled firing", "PgharvestReaperStalled resolved");
            }
        }
    }

    private static void override(ApiClient api, String builtIn, String forDuration, String keepFiringFor) {
        JsonNode pack = api.get("/api/v1/alert-rules/" + builtIn).json();
        assertThat(pack.get("origin").asString()).isEqualTo("built-in");
        var rule = new HashMap<String, Object>();
        for (String field : List.of("metric", "condition", "severity", "summary", "description")) {
            rule.put(field, pack.get(field).asString());
        }
        rule.put("name", builtIn);
        rule.put("for", forDuration);
        rule.put("keepFiringFor", keepFiringFor);
        ApiClient.Response replaced = api.put("/api/v1/alert-rules/" + builtIn, rule);
        assertThat(replaced.status()).as(replaced.body()).isIn(200, 201);
    }

    private static JsonNode awaitAlert(ApiClient api, String rule) {
        return Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> api.get("/api/v1/alerts").json().valueStream()
                        .filter(a -> a.get("alertname").asString().equals(rule) && a.get("state").asString().equals("firing")
                                && a.get("source").asString().equals(SELF))
                        .findFirst().orElse(null), a -> a != null);
    }

    private static void awaitGone(ApiClient api, String rule) {
        Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> api.get("/api/v1/alerts").json().valueStream()
                        .noneMatch(a -> a.get("alertname").asString().equals(rule)));
    }

    private static List<String> history(ApiClient api) {
        return api.get("/api/v1/alerts/history").json().valueStream()
                .filter(t -> t.at("/labels/source").asString().equals(SELF))
                .map(t -> t.at("/labels/alertname").asString() + " " + t.get("state").asString()).toList();
    }

    /** Rows of {@code self_sinks} the sink stored under this instance's own source name. */
    private static long storedSelfRows(TestPostgres sinkServer) {
        return Long.parseLong(sinkServer.queryString("self_sink",
                "select count(*) from public.self_sinks where dbname = '" + SELF + "'"));
    }

    private static void created(ApiClient.Response response) {
        assertThat(response.status()).as(response.body()).isEqualTo(201);
    }
}
