package io.pgharvest.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The recent window over the API, fed by a real source: commits made on the database show as the
 * transaction rate of db_stats, the blocking form answers with the source's next measurement, and
 * bad parameters get problem details naming each of them.
 */
class WindowApiTest extends ApiTestBase {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void commitsOnTheDatabaseShowAsATransactionRateAndTheBlockingFormAnswersWithTheNextPoint() throws Exception {
        pg.createDatabase("window_db");
        assertThat(api().post("/api/v1/sources", Map.of("name", "window-live", "connStr", pg.connStr("window_db"),
                "metrics", Map.of("db_stats", 1, "db_size", 1))).status()).isEqualTo(201);

        JsonNode first = Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                .until(() -> api().get("/api/v1/sources/window-live/window?metric=db_stats").json(),
                        body -> !series(body, "xact_commit").isEmpty());
        assertThat(first.get("windowSpan").asString()).isEqualTo("PT1H");
        assertThat(first.at("/series/0/kind").asString()).isIn("rate", "gauge");
        assertThat(first.get("series").valueStream().map(s -> s.get("metric").asString()).distinct().toList())
                .containsExactly("db_stats");

        try (Connection c = pg.connect("window_db"); Statement s = c.createStatement()) {
            for (int i = 0; i < 2000; i++) {
                s.execute("select 1"); // autocommit: one transaction each
            }
        }
        JsonNode busy = Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                .until(() -> api().get("/api/v1/sources/window-live/window?span=5m").json(),
                        body -> series(body, "xact_commit").stream().anyMatch(v -> v > 100));
        assertThat(busy.at("/series").valueStream().filter(s -> s.get("column").asString().equals("xact_commit"))
                .findFirst().orElseThrow().get("kind").asString()).isEqualTo("rate");
        assertThat(series(busy, "size_b").getLast()).isGreaterThan(1_000_000);

        ApiClient.Response now = api().get("/api/v1/sources/window-live/window?metric=db_size");
        CompletableFuture<ApiClient.Response> next = api().getAsync(
                "/api/v1/sources/window-live/window?metric=db_size&wait=30s&index=" + now.index());
        ApiClient.Response answered = next.get(10, TimeUnit.SECONDS); // the next second's measurement, not 30 s
        assertThat(answered.index()).isGreaterThan(now.index());

        JsonNode fleet = api().get("/api/v1/window").json();
        JsonNode mine = fleet.valueStream().filter(n -> n.get("source").asString().equals("window-live")).findFirst()
                .orElseThrow();
        assertThat(mine.get("tps").asDouble()).isPositive();
        assertThat(mine.get("sizeBytes").asDouble()).isGreaterThan(1_000_000);
    }

    @Test
    void badParametersAreNamedInProblemDetailsAndAnUnknownSourceIs404() {
        ApiClient.Response bad = api().get("/api/v1/sources/window-none/window?span=2h&metric=nope&metric=db_stats&index=x");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.header("Content-Type")).startsWith("application/problem+json");
        assertThat(bad.errorFields()).containsExactly("span", "metric", "index");
        assertThat(bad.body()).contains("nope").doesNotContain("\"db_stats]");

        assertThat(api().get("/api/v1/sources/window-none/window?span=abc").errorFields()).containsExactly("span");
        assertThat(api().get("/api/v1/sources/window-none/window").status()).isEqualTo(404);
        assertThat(api().get("/api/v1/window?wait=soon").errorFields()).containsExactly("wait");
    }

    private static List<Double> series(JsonNode body, String column) {
        return body.get("series").valueStream().filter(s -> s.get("column").asString().equals(column))
                .flatMap(s -> s.get("values").valueStream()).map(JsonNode::asDouble).toList();
    }
}
