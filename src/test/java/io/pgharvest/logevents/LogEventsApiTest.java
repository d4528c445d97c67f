package io.pgharvest.logevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.api.ApiTestBase;
import io.pgharvest.serverlog.LogWorkload;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * End to end through the running application: a source selecting log_errors and log_temp_files on
 * a server that writes csvlog; the errors and the temp file a workload causes are published like
 * any metric (the JSON lines sink has them), reach GET /api/v1/sources/{name}/log-events, filter by
 * category and query ID (a deadlock by either side's), and carry none of the workload's literals.
 * Bad filters get problem details naming every field.
 */
class LogEventsApiTest extends ApiTestBase {

    private static final String SOURCE = "log-events-api";
    private static TestPostgres pg;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.of("logging_collector", "on", "log_destination", "csvlog",
                "lc_messages", "C", "log_temp_files", "0", "compute_query_id", "on", "log_lock_waits", "on",
                "deadlock_timeout", "200ms"));
        pg.createDatabase("logapi");
    }

    @AfterAll
    static void stopServer() {
        pg.close();
    }

    @Test
    void theEventsOfASourceAreServedNewestFirstFilteredAndWithoutLiterals() throws Exception {
        assertThat(api().post("/api/v1/sources", Map.of("name", SOURCE, "connStr", pg.connStr("logapi"),
                "metrics", Map.of("log_errors", 1, "log_temp_files", 1))).status()).isEqualTo(201);
        try {
            // the first read starts at the end of the log: wait for it before causing events
            await().atMost(Duration.ofSeconds(20)).until(() -> api().get("/api/v1/sources/" + SOURCE + "/status")
                    .body().contains("log_errors"));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                try {
                    pg.execute("logapi", "select 'corpus-api-secret'::int");
                } catch (RuntimeException expected) {
                    // the error is what the log records
                }
                pg.execute("logapi", "set work_mem = '64kB'; select count(*) from (select g from"
                        + " generate_series(1, 60000) g order by g desc) s");
                var errors = api().get("/api/v1/sources/" + SOURCE + "/log-events?category=errors");
                assertThat(errors.status()).isEqualTo(200);
                assertThat(errors.json().get("events")).anySatisfy(event -> {
                    assertThat(event.get("metric").asString()).isEqualTo("log_errors");
                    assertThat(event.get("values").get("sqlstate").asString()).isEqualTo("22P02");
                    assertThat(event.get("tags").get("class").asString()).isEqualTo("22");
                });
                var temp = api().get("/api/v1/sources/" + SOURCE + "/log-events?category=temp_files");
                assertThat(temp.json().get("events")).isNotEmpty();
            });
            var all = api().get("/api/v1/sources/" + SOURCE + "/log-events");
            assertThat(all.body()).doesNotContain("corpus-api-secret");
            assertThat(all.json().get("keptPerSource").asInt()).isEqualTo(LogEventBook.MAX_EVENTS);
            JsonNode temp = api().get("/api/v1/sources/" + SOURCE + "/log-events?category=temp_files").json()
                    .get("events").get(0);
            String queryid = temp.get("values").get("queryid").asString();
            var byQuery = api().get("/api/v1/sources/" + SOURCE + "/log-events?queryid=" + queryid).json().get("events");
            assertThat(byQuery).isNotEmpty().allSatisfy(event -> assertThat(event.get("values").get("queryid").asString())
                    .isEqualTo(queryid));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                    Files.readString(DATA_DIR.resolve("measurements.jsonl"))).contains("\"log_temp_files\"")
                    .doesNotContain("corpus-api-secret"));
        } finally {
            api().delete("/api/v1/sources/" + SOURCE);
        }
    }

    @Test
    void aDeadlockIsAnEventOfTheQueryIdsOfBothSides() throws Exception {
        String source = SOURCE + "-deadlock";
        assertThat(api().post("/api/v1/sources", Map.of("name", source, "connStr", pg.connStr("logapi"),
                "metrics", Map.of("log_deadlocks", 1))).status()).isEqualTo(201);
        try (var workload = new LogWorkload(pg, "logapi", Duration.ofMillis(200))) {
            // the first read starts at the end of the log: the deadlock comes after it
            await().atMost(Duration.ofSeconds(30)).until(() -> api().get("/api/v1/sources/" + source + "/status").json()
                    .findParents("lastSuccess").stream().anyMatch(metric -> "log_deadlocks".equals(
                            metric.path("name").asString()) && !metric.get("lastSuccess").isNull()));
            long[] deadlock = workload.provokeADeadlock("api_deadlock");

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(api().get("/api/v1/sources/"
                    + source + "/log-events?category=deadlocks").json().get("events")).isNotEmpty());
            for (long queryid : new long[] {deadlock[2], deadlock[3]}) {
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(api().get("/api/v1/sources/"
                        + source + "/log-events?category=deadlocks&queryid=" + queryid).json().get("events"))
                        .as("query %s", queryid).singleElement().satisfies(event -> assertThat(
                                event.get("values").get("other_pids").asString()).isEqualTo(String.valueOf(deadlock[1]))));
            }
        } finally {
            api().delete("/api/v1/sources/" + source);
        }
    }

    @Test
    void badFiltersAreRefusedNamingEachFieldAndAnUnknownSourceIsNotFound() {
        var bad = api().get("/api/v1/sources/" + SOURCE + "-none/log-events?category=gossip&severity=loud"
                + "&queryid=abc&limit=0");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.errorFields()).containsExactlyInAnyOrder("category", "severity", "queryid", "limit");

        assertThat(api().get("/api/v1/sources/" + SOURCE + "-none/log-events").status()).isEqualTo(404);
    }
}
