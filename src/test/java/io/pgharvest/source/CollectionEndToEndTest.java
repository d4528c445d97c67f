package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Sources registered through the API are collected by the engine, and the status endpoint and
 * health tell an operator what is happening, while a dead source never makes pgharvest unready.
 */
class CollectionEndToEndTest extends ApiTestBase {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void aRegisteredSourceIsCollectedAndItsStatusAndHealthShowIt() {
        pg.createDatabase("e2e_db");
        api().post("/api/v1/metrics", Map.of("name", "e2e_ping", "sqls", Map.of("14", "select 1 as up_value"),
                "gauges", List.of("*")));
        api().post("/api/v1/metrics", Map.of("name", "e2e_broken", "sqls", Map.of("14", "select * from e2e_missing"),
                "gauges", List.of("*")));
        var created = api().post("/api/v1/sources", Map.of("name", "e2e-live", "connStr", pg.connStr("e2e_db"),
                "metrics", Map.of("e2e_ping", 1, "e2e_broken", 1)));
        assertThat(created.status()).isEqualTo(201);

        JsonNode runtime = Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> api().get("/api/v1/sources/e2e-live/status").json(),
                        s -> s.get("state").asString().equals("connected")
                                && laneOf(s, "e2e_broken").equals("solo") && lastSuccessOf(s, "e2e_ping") != null)
                .get("runtime");
        assertThat(runtime.get("serverVersionNum").asInt()).isEqualTo(pg.serverVersionNum());
        assertThat(runtime.get("inRecovery").asBoolean()).isFalse();
        assertThat(runtime.get("tickPeriod").asString()).isNotBlank();
        JsonNode broken = metricOf(runtime, "e2e_broken");
        assertThat(broken.get("lastError").asString()).contains("e2e_missing").contains("42P01");

        JsonNode health = api().get("/actuator/health").json();
        assertThat(health.at("/components/sources/components/e2e-live/status").asString()).isEqualTo("UP");
        assertThat(health.at("/components/sources/components/e2e-live/details/isolatedMetrics").asInt()).isEqualTo(1);
    }

    @Test
    void aContinuousDiscoverySourceShowsItsDatabasesInItsStatusAndHealth() {
        pg.createDatabase("e2e_disc_1");
        pg.createDatabase("e2e_disc_2");
        api().post("/api/v1/metrics", Map.of("name", "e2e_disc_ping", "sqls", Map.of("14", "select 1 as up_value"),
                "gauges", List.of("*")));
        var created = api().post("/api/v1/sources", Map.of("name", "e2e-disc", "connStr", pg.connStr("postgres"),
                "kind", "postgres-continuous-discovery", "includePattern", "^e2e_disc_",
                "metrics", Map.of("e2e_disc_ping", 1)));
        assertThat(created.status()).isEqualTo(201);

        JsonNode status = Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> api().get("/api/v1/sources/e2e-disc/status").json(),
                        s -> s.at("/discovery/members").size() == 2
                                && s.at("/discovery/members/0/state").asString().equals("connected")
                                && s.at("/discovery/members/1/state").asString().equals("connected"));
        assertThat(status.get("state").asString()).isEqualTo("connected");
        assertThat(status.at("/discovery/members/0/name").asString()).isEqualTo("e2e-disc_e2e_disc_1");
        assertThat(status.at("/discovery/members/1/role").asString()).isEqualTo("e2e_disc_2");
        assertThat(status.at("/discovery/lastDiscoveryAt").asString()).isNotBlank();
        assertThat(status.toString()).doesNotContain("password");

        JsonNode health = api().get("/actuator/health").json();
        assertThat(health.at("/components/sources/components/e2e-disc/status").asString()).isEqualTo("UP");
        assertThat(health.at("/components/sources/components/e2e-disc/details/discovered").asInt()).isEqualTo(2);
    }

    @Test
    void anUnreachableSourceIsUnreachableInHealthButPgharvestStaysUpAndReady() {
        api().post("/api/v1/sources", Map.of("name", "e2e-dead", "connStr", "postgresql://127.0.0.1:1/none",
                "preset", "minimal"));

        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(
                () -> api().get("/actuator/health").json().at("/components/sources/components/e2e-dead/status").asString(),
                "UNREACHABLE"::equals);
        JsonNode dead = api().get("/actuator/health").json().at("/components/sources/components/e2e-dead");
        assertThat(dead.at("/details/reason").asString()).contains("cannot connect");
        assertThat(api().withToken(null).get("/actuator/health/readiness").status()).isEqualTo(200);
        var top = api().get("/actuator/health");
        assertThat(top.status()).isEqualTo(200);
        assertThat(top.json().get("status").asString()).isEqualTo("UP");
        var group = api().get("/actuator/health/fleet");
        assertThat(group.status()).isEqualTo(200);
        assertThat(group.json().get("status").asString()).isEqualTo("UNREACHABLE");
        assertThat(group.json().at("/components/sources/components/e2e-dead/details/reason").asString())
                .contains("cannot connect");

        var status = api().get("/api/v1/sources/e2e-dead/status").json();
        assertThat(status.get("state").asString()).isEqualTo("disconnected");
        assertThat(status.at("/runtime/lastConnectionError").asString()).contains("cannot connect");
    }

    @Test
    void aDisabledSourceIsDisabledInHealthAndPgharvestStaysUp() {
        api().post("/api/v1/sources", Map.of("name", "e2e-off", "connStr", "postgresql://127.0.0.1:1/none",
                "enabled", false));

        Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100)).until(
                () -> api().get("/actuator/health").json().at("/components/sources/components/e2e-off/status").asString(),
                "DISABLED"::equals);
        var top = api().get("/actuator/health");
        assertThat(top.status()).isEqualTo(200);
        assertThat(top.json().get("status").asString()).isEqualTo("UP");
        assertThat(api().get("/api/v1/sources/e2e-off/status").json().get("state").asString()).isEqualTo("disabled");
    }

    private static JsonNode metricOf(JsonNode runtime, String metric) {
        for (JsonNode m : runtime.get("metrics")) {
            if (m.get("name").asString().equals(metric)) {
                return m;
            }
        }
        throw new AssertionError("no metric " + metric + " in " + runtime);
    }

    private static String laneOf(JsonNode status, String metric) {
        return status.get("runtime") == null || status.get("runtime").isNull() ? ""
                : metricOf(status.get("runtime"), metric).get("lane").asString();
    }

    private static String lastSuccessOf(JsonNode status, String metric) {
        JsonNode value = metricOf(status.get("runtime"), metric).get("lastSuccess");
        return value == null || value.isNull() ? null : value.asString();
    }
}
