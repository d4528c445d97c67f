package io.pgharvest.alert.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.alert.notify.dispatch.TestWebhook;
import io.pgharvest.api.ApiClient;
import io.pgharvest.store.postgres.PostgresStores;
import io.pgharvest.testsupport.PgharvestProcess;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Two pgharvest processes sharing one PostgreSQL configuration store (a fleet, docs/fleet.md) and
 * one source whose idle-in-transaction session fires a rule: the webhook is told once, not once per
 * instance; when the instance holding the source's lease is killed with SIGKILL, the other takes
 * the source over with the alert still firing since the same moment and without a second firing,
 * and it sends the resolution when the transaction ends.
 */
class AlertsAcrossAFleetTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final String SOURCE = "fleet-alert-src";
    private static final String RULE = "fleet-idle";
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    @TempDir
    Path root;

    @Test
    void twoInstancesNotifyOnceAndATakeoverKeepsTheFiringAlertAndResolvesIt() throws Exception {
        PG.createDatabase("alerts_fleet");
        String store = PostgresStores.newDatabase("alerts_fleet_store");
        try (var hook = new TestWebhook(); Connection idle = PG.connect("alerts_fleet");
                Statement statement = idle.createStatement();
                var a = member("a", store); var b = member("b", store)) {
            ApiClient api = a.api();
            created(api.post("/api/v1/alert-receivers", Map.of("name", "hook", "type", "webhook",
                    "url", hook.url("/fleet"))));
            created(api.post("/api/v1/alert-rules", Map.of("name", RULE, "metric", "backends",
                    "condition", "longest_idle_in_transaction_s > params.max_s", "params", Map.of("max_s", 1),
                    "for", "1s", "summary", "idle on {{ source }}", "sources", Map.of("names", List.of(SOURCE)))));
            created(api.post("/api/v1/sources", Map.of("name", SOURCE, "connStr", PG.connStr("alerts_fleet"),
                    "metrics", Map.of("backends", 1))));
            idle.setAutoCommit(false);
            statement.execute("select txid_current()");

            String owner = Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(250))
                    .until(AlertsAcrossAFleetTest::owner, o -> o != null);
            PgharvestProcess holder = owner.equals("a") ? a : b;
            PgharvestProcess other = holder == a ? b : a;
            JsonNode firing = awaitFiring(holder.api());
            Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                    .until(() -> notifications(hook, "firing").size() == 1);
            // Both instances run an outbox dispatcher on the shared store: still one, some rounds later.
            Awaitility.await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(250)).until(() -> notifications(hook, "firing").size() == 1);
            Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> holder.api()
                    .get("/api/v1/alert-receivers/hook/notifications").json().valueStream()
                    .anyMatch(n -> n.toString().contains("delivered")));

            holder.kill();
            Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(250))
                    .until(() -> otherThan(owner, owner()));
            JsonNode takenOver = awaitFiring(other.api());
            assertThat(takenOver.get("firingSince").asString()).isEqualTo(firing.get("firingSince").asString());
            Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(250)).until(() -> notifications(hook, "firing").size() == 1);

            idle.commit();
            Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                    .until(() -> notifications(hook, "resolved").size() == 1);
            assertThat(notifications(hook, "resolved").getFirst().json().get("fingerprint"))
                    .isEqualTo(notifications(hook, "firing").getFirst().json().get("fingerprint"));
            assertThat(notifications(hook, "firing")).hasSize(1);
            assertThat(other.log()).doesNotContain("Exception in thread");
        }
    }

    private PgharvestProcess member(String id, String store) {
        return PgharvestProcess.start(root.resolve(id), "--pgharvest.store.url=" + store,
                "--pgharvest.fleet.instance-id=" + id, "--pgharvest.fleet.lease-duration=6s",
                "--pgharvest.fleet.renew-interval=1s", "--pgharvest.sinks[0].type=jsonfile",
                "--pgharvest.alert.notifications.poll-interval=200ms");
    }

    private static boolean otherThan(String previous, String now) {
        return now != null && !now.equals(previous);
    }

    /** The instance holding the source's lease, or null while nobody does. */
    private static String owner() throws Exception {
        try (Connection c = PG.connect("alerts_fleet_store");
                var query = c.prepareStatement("SELECT owner FROM pgharvest_config.source_lease WHERE source = ?")) {
            query.setString(1, SOURCE);
            try (ResultSet rs = query.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static JsonNode awaitFiring(ApiClient api) {
        return Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                .until(() -> api.get("/api/v1/alerts").json().valueStream()
                        .filter(alert -> alert.get("alertname").asString().equals(RULE)
                                && alert.get("state").asString().equals("firing"))
                        .findFirst().orElse(null), alert -> alert != null);
    }

    private static List<TestWebhook.Received> notifications(TestWebhook hook, String status) {
        return hook.received().stream().filter(r -> r.json().get("status").asString().equals(status)
                && r.json().at("/labels/alertname").asString().equals(RULE)).toList();
    }

    private static void created(ApiClient.Response response) {
        assertThat(response.status()).as(response.body()).isEqualTo(201);
    }
}
