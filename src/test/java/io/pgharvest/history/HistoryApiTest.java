package io.pgharvest.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.ApiTestBase;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.postgres.PostgresSink;
import io.pgharvest.sink.postgres.PostgresSinkProperties;
import io.pgharvest.sink.postgres.SinkPoolThreads;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Ranges beyond the recent window over the API: two days of a source written through the postgres
 * sink into the database the shared context's history reader reads (pgharvest.history[0]) come
 * back from the store that holds them, saying so and at what step; bad ranges are named in
 * problem details.
 */
class HistoryApiTest extends ApiTestBase {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final String SOURCE = "history-api";
    private static final Instant END = Instant.now().truncatedTo(ChronoUnit.HOURS);
    private static final Instant START = END.minus(Duration.ofDays(2));

    @BeforeAll
    static void twoDaysInTheStore() throws Exception {
        PG.createDatabase(HISTORY_DB);
        try (var threads = new SinkPoolThreads()) {
            PostgresSink sink = PostgresSink.create("pgharvest.sinks[0]", "history-api",
                    PostgresSinkProperties.of(PG.connStr(HISTORY_DB)), threads, Clock.systemUTC());
            try {
                var fleet = new FleetHistory(List.of(SOURCE));
                var batch = new ArrayList<Measurement>();
                for (long m = 0; m < Duration.ofDays(2).toMinutes(); m++) {
                    batch.addAll(fleet.minute(m, START.plus(Duration.ofMinutes(m))));
                }
                sink.write(batch);
            } finally {
                sink.close();
            }
        }
    }

    @Test
    void aRangeBeyondTheWindowIsAnsweredByThePostgresStoreWithItsStep() {
        register();
        try {
            String range = "from=" + START + "&to=" + END;
            JsonNode window = ok("/api/v1/sources/" + SOURCE + "/window?" + range + "&metric=db_stats");
            assertThat(window.get("store").asString()).isEqualTo("postgres");
            assertThat(window.get("step").asString()).isEqualTo("PT5M");
            assertThat(window.get("error").isNull()).isTrue();
            JsonNode commits = column(window, "xact_commit");
            assertThat(commits.get("store").asString()).isEqualTo("postgres");
            assertThat(commits.get("kind").asString()).isEqualTo("rate");
            assertThat(commits.get("times").size()).isEqualTo(576);
            // One source of FleetHistory commits 10 + minute % 60 a minute: 5-minute means between 10/60 and 69/60 a second.
            commits.get("values").valueStream().forEach(v -> assertThat(v.asDouble()).isBetween(10 / 60.0, 69 / 60.0));

            JsonNode statements = ok("/api/v1/sources/" + SOURCE + "/queries?from=" + START + "&span=2d");
            assertThat(statements.get("store").asString()).isEqualTo("postgres");
            assertThat(statements.get("statements").valueStream().map(s -> s.get("queryid").asString()).toList())
                    .containsExactly(FleetHistory.OTHER_STATEMENT, FleetHistory.STATEMENT, "other");
            long minutes = Duration.ofDays(2).toMinutes();
            long expectedCalls = 0;
            for (long m = 0; m < minutes; m++) {
                expectedCalls += 1 + m % 5;
            }
            assertThat(statements.at("/statements/1/calls").asDouble()).isEqualTo(expectedCalls);
            assertThat(statements.at("/statements/1/approximate").asBoolean()).isTrue(); // minute 100 of source 0

            JsonNode statement = ok("/api/v1/sources/" + SOURCE + "/queries/" + FleetHistory.STATEMENT + "?" + range
                    + "&step=1h");
            assertThat(statement.get("store").asString()).isEqualTo("postgres");
            assertThat(statement.get("step").asString()).isEqualTo("PT1H");
            assertThat(column(statement, "calls").get("times").size()).isEqualTo(48);
        } finally {
            api().delete("/api/v1/sources/" + SOURCE);
        }
    }

    @Test
    void theFleetsKeyNumbersOverTwoDaysComeFromTheStoreInOneAnswerNamingIt() {
        register();
        try {
            JsonNode fleet = ok("/api/v1/window?from=" + START + "&to=" + END);
            JsonNode numbers = fleet.valueStream().filter(n -> n.get("source").asString().equals(SOURCE)).findFirst()
                    .orElseThrow(() -> new AssertionError("no " + SOURCE + " in " + fleet));
            assertThat(numbers.get("store").asString()).isEqualTo("postgres");
            assertThat(numbers.get("error").isNull()).as(numbers.toString()).isTrue();
            // FleetHistory's first source: commits grow by 10 + minute % 60 a minute, rollbacks are commits / 100.
            long minutes = Duration.ofDays(2).toMinutes();
            long commits = 0;
            long first = 0;
            for (long m = 0; m < minutes; m++) {
                commits += 10 + m % 60;
                if (m == 0) {
                    first = commits + commits / 100;
                }
            }
            double tps = (commits + commits / 100 - first) / ((minutes - 1) * 60.0);
            assertThat(numbers.get("tps").asDouble()).isCloseTo(tps, org.assertj.core.api.Assertions.within(1e-9));
            assertThat(numbers.get("connectionsMax").asDouble()).isEqualTo(15); // 5 + (0 + minute) % 11
            assertThat(numbers.get("sizeBytes").isNull()).isTrue();
            // A source the store holds no rows of says so instead of showing zeros.
            assertThat(fleet.valueStream().filter(n -> !n.get("source").asString().equals(SOURCE)))
                    .allSatisfy(other -> assertThat(other.get("tps").isNull()).isTrue())
                    .allSatisfy(other -> assertThat(other.get("error").asString()).contains("holds no key numbers"));
            // Which store answers a range within the window's span (the window for a source it holds since the
            // range's start, else the store): RestartFromStoreTest and PrometheusHistoryReaderTest.
        } finally {
            api().delete("/api/v1/sources/" + SOURCE);
        }
    }

    @Test
    void badFleetRangesAreNamedInProblemDetails() {
        assertThat(bad("/api/v1/window?from=" + END + "&to=" + START)).containsExactly("to");
        assertThat(bad("/api/v1/window?from=" + END.minus(Duration.ofDays(500)) + "&to=" + END)).containsExactly("from");
        assertThat(bad("/api/v1/window?span=2d")).containsExactly("span");
        assertThat(bad("/api/v1/window?from=soon&span=1y")).containsExactlyInAnyOrder("from", "span");
    }

    @Test
    void badRangesAreNamedInProblemDetails() {
        register();
        try {
            String path = "/api/v1/sources/" + SOURCE + "/window?";
            assertThat(bad(path + "from=" + END + "&to=" + START)).containsExactly("to");
            assertThat(bad(path + "from=yesterday&to=2026-13-01T00:00:00Z")).containsExactlyInAnyOrder("from", "to");
            assertThat(bad(path + "from=" + START + "&step=1s")).containsExactly("step");
            assertThat(bad(path + "from=" + START + "&to=" + END + "&span=1h")).containsExactly("span");
            assertThat(bad(path + "from=" + END.minus(Duration.ofDays(40)))).containsExactly("from"); // past 30d retention
            assertThat(bad(path + "from=" + END.minus(Duration.ofDays(500)) + "&to=" + END)).containsExactly("from");
            assertThat(bad(path + "span=2d")).containsExactly("span");
            assertThat(bad("/api/v1/sources/" + SOURCE + "/queries?from=" + END.plus(Duration.ofDays(1))))
                    .containsExactly("from");
            assertThat(api().get("/api/v1/sources/no-such-source/window?from=" + START).status()).isEqualTo(404);
        } finally {
            api().delete("/api/v1/sources/" + SOURCE);
        }
    }

    private void register() {
        ApiClient.Response created = api().post("/api/v1/sources", Map.of("name", SOURCE,
                "connStr", PG.connStr("postgres"), "metrics", Map.of("db_size", 60)));
        assertThat(created.status()).as(created.body()).isIn(201, 409);
    }

    private JsonNode ok(String path) {
        ApiClient.Response response = api().get(path);
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json();
    }

    private List<String> bad(String path) {
        ApiClient.Response response = api().get(path);
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.header("Content-Type")).startsWith("application/problem+json");
        return response.errorFields();
    }

    private static JsonNode column(JsonNode answer, String column) {
        return answer.get("series").valueStream().filter(s -> s.get("column").asString().equals(column))
                .findFirst().orElseThrow(() -> new AssertionError("no " + column + " in " + answer));
    }
}
