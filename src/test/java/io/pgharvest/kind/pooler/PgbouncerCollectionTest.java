package io.pgharvest.kind.pooler;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.testsupport.TestPgbouncer;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Sources of kind pgbouncer, end to end: registered through the admin API, collected from the
 * admin console of a real pgbouncer (Debian's package) with pgharvest's console client, and
 * delivered to a JSON lines sink under pgwatch's metric names. Fails when pgbouncer is missing.
 */
class PgbouncerCollectionTest {

    private static final List<String> METRICS = List.of("pgbouncer_stats", "pgbouncer_clients", "pgbouncer_pools",
            "pgbouncer_servers", "pgbouncer_lists", "pgbouncer_databases");
    private static final String USER = "bouncer_monitor";
    private static final String PASSWORD = "Bouncer-pw-88q";

    private static TestPgbouncer trust;
    private static TestPgbouncer scram;

    @BeforeAll
    static void startPgbouncers() throws Exception {
        trust = TestPgbouncer.start(TestPostgres.shared());
        scram = TestPgbouncer.start(TestPostgres.shared(), "scram-sha-256", USER, PASSWORD);
        // Traffic through the pool, so that SHOW STATS and SHOW SERVERS have something to say.
        try (Connection client = DriverManager.getConnection(trust.jdbcUrl(TestPgbouncer.DATABASE));
             Statement statement = client.createStatement()) {
            statement.execute("select 1");
        }
    }

    @AfterAll
    static void stopPgbouncers() {
        if (trust != null) {
            trust.close();
        }
        if (scram != null) {
            scram.close();
        }
    }

    @Test
    void everyPgbouncerMetricReachesTheSinkUnderPgwatchsName(@TempDir Path dataDir) {
        try (PoolerHarvest harvest = PoolerHarvest.start(dataDir)) {
            // A command this pgbouncer does not know: isolated, while the others keep flowing.
            assertThat(harvest.api().post("/api/v1/metrics", Map.of("name", "bouncer_unknown",
                    "sqls", Map.of("0", "show no_such_list"))).status()).isEqualTo(201);
            var withUnknown = new java.util.ArrayList<>(METRICS);
            withUnknown.add("bouncer_unknown");
            harvest.addSource("bouncer", "pgbouncer", "postgresql://postgres@127.0.0.1:" + trust.port()
                    + "/pgbouncer", withUnknown);

            JsonNode stats = harvest.awaitMeasurement("bouncer", "pgbouncer_stats");
            JsonNode catalog = rowWhere(stats, "database", TestPgbouncer.DATABASE);
            assertThat(catalog.get("total_query_count").isIntegralNumber()).isTrue();
            assertThat(catalog.get("total_query_count").asLong()).isPositive();
            JsonNode clients = harvest.awaitMeasurement("bouncer", "pgbouncer_clients");
            assertThat(rowWhere(clients, "application_name", "pgharvest").get("database").asString())
                    .isEqualTo(TestPgbouncer.CONSOLE);
            for (String metric : METRICS) {
                assertThat(harvest.awaitMeasurement("bouncer", metric).get("rows").size()).as(metric).isPositive();
            }

            JsonNode status = harvest.awaitStatus("bouncer", s -> s.at("/runtime/state").asString().equals("connected")
                    && METRICS.stream().allMatch(m -> !metricStatus(s, m).path("lastSuccess").isMissingNode()
                    && !metricStatus(s, m).path("lastSuccess").isNull()));
            assertThat(status.get("kind").asString()).isEqualTo("pgbouncer");
            assertThat(status.at("/runtime/serverVersion").asString()).startsWith("PgBouncer 1.");
            assertThat(status.at("/runtime/serverVersionNum").isNull()).isTrue();
            JsonNode unknown = harvest.awaitStatus("bouncer", s -> metricStatus(s, "bouncer_unknown")
                    .path("lane").asString("").equals("solo"));
            assertThat(metricStatus(unknown, "bouncer_unknown").get("lastError").asString()).contains("no_such_list");
            assertThat(unknown.at("/runtime/state").asString()).isEqualTo("connected");
            JsonNode test = harvest.api().post("/api/v1/sources/bouncer/test", Map.of()).json();
            assertThat(test.get("reachable").asBoolean()).isTrue();
            assertThat(test.get("serverVersion").asString()).startsWith("PgBouncer 1.");
        }
    }

    @Test
    void metricsThatAreNotShowCommandsAndUnusedSettingsAreRefused(@TempDir Path dataDir) {
        try (PoolerHarvest harvest = PoolerHarvest.start(dataDir)) {
            String connStr = "postgresql://postgres@127.0.0.1:" + trust.port() + "/pgbouncer";
            var withPostgresMetric = harvest.api().post("/api/v1/sources", Map.of("name", "bouncer-bad",
                    "kind", "pgbouncer", "connStr", connStr, "metrics", Map.of("db_stats", 60)));
            assertThat(withPostgresMetric.status()).isEqualTo(400);
            assertThat(withPostgresMetric.errorFields()).containsExactly("metrics.db_stats");
            var unusedParameter = harvest.api().post("/api/v1/sources", Map.of("name", "bouncer-bad",
                    "kind", "pgbouncer", "connStr", connStr + "?target_session_attrs=any&sslmode=verify-full",
                    "preset", "pgbouncer"));
            assertThat(unusedParameter.status()).isEqualTo(400);
            assertThat(unusedParameter.body()).contains("target_session_attrs").contains("verify-full");
            assertThat(harvest.api().get("/api/v1/sources/bouncer-bad").status()).isEqualTo(404);

            assertThat(harvest.api().post("/api/v1/sources", Map.of("name", "bouncer-preset", "kind", "pgbouncer",
                    "connStr", connStr, "preset", "pgbouncer")).status()).isEqualTo(201);
        }
    }

    @Test
    void aScramProtectedConsoleIsCollectedWithThePasswordAndAWrongOneIsReportedWithoutIt(@TempDir Path dataDir) {
        try (PoolerHarvest harvest = PoolerHarvest.start(dataDir)) {
            String base = "@127.0.0.1:" + scram.port() + "/pgbouncer";
            harvest.addSource("bouncer-scram", "pgbouncer", "postgresql://" + USER + ":" + PASSWORD + base,
                    List.of("pgbouncer_pools"));
            harvest.addSource("bouncer-wrong", "pgbouncer", "postgresql://" + USER + ":Wrong-pw-404" + base,
                    List.of("pgbouncer_pools"));

            JsonNode pools = harvest.awaitMeasurement("bouncer-scram", "pgbouncer_pools");
            assertThat(rowWhere(pools, "database", TestPgbouncer.CONSOLE)).isNotNull();
            JsonNode wrong = harvest.awaitStatus("bouncer-wrong",
                    s -> !s.at("/runtime/lastConnectionError").isMissingNode()
                            && !s.at("/runtime/lastConnectionError").isNull());
            assertThat(wrong.at("/runtime/lastConnectionError").asString())
                    .contains("authentication failed").doesNotContain("Wrong-pw-404");
            assertThat(wrong.at("/runtime/state").asString()).isNotEqualTo("connected");
            JsonNode test = harvest.api().post("/api/v1/sources/bouncer-wrong/test", Map.of()).json();
            assertThat(test.get("reachable").asBoolean()).isFalse();
            assertThat(test.get("error").asString()).contains("authentication failed").doesNotContain("Wrong-pw-404");
        }
    }

    @Test
    void aPgbouncerThatGoesAwayIsReportedDownAndCollectedAgainWhenItReturns(@TempDir Path dataDir) {
        try (TestPgbouncer restarting = TestPgbouncer.start(TestPostgres.shared());
             PoolerHarvest harvest = PoolerHarvest.start(dataDir)) {
            harvest.addSource("bouncer-restart", "pgbouncer", "postgresql://postgres@127.0.0.1:" + restarting.port()
                    + "/pgbouncer", List.of("pgbouncer_lists"));
            harvest.awaitStatus("bouncer-restart", s -> s.at("/runtime/state").asString().equals("connected"));

            restarting.stop();
            JsonNode down = harvest.awaitStatus("bouncer-restart",
                    s -> !s.at("/runtime/state").asString().equals("connected")
                            && !s.at("/runtime/lastConnectionError").isNull());
            assertThat(down.at("/runtime/lastConnectionError").asString()).isNotBlank();
            assertThat(harvest.awaitMeasurementWhere("bouncer-restart", "instance_up",
                    m -> m.at("/rows/0/instance_up").asLong() == 0)).isNotNull();

            restarting.restart();
            harvest.awaitStatus("bouncer-restart", s -> s.at("/runtime/state").asString().equals("connected"));
            assertThat(harvest.awaitMeasurementWhere("bouncer-restart", "instance_up",
                    m -> m.at("/rows/0/instance_up").asLong() == 1)).isNotNull();
        }
    }

    static JsonNode rowWhere(JsonNode measurement, String column, String value) {
        return measurement.get("rows").valueStream().filter(row -> value.equals(row.path(column).asString(null)))
                .findFirst().orElseThrow(() -> new AssertionError("no row with " + column + "=" + value + " in "
                        + measurement));
    }

    static JsonNode metricStatus(JsonNode status, String metric) {
        return status.at("/runtime/metrics").valueStream().filter(m -> metric.equals(m.path("name").asString(null)))
                .findFirst().orElse(ApiClient.JSON.missingNode());
    }
}
