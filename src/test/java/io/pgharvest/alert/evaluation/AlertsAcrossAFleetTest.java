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
    private static final ProcessAlertChecks CHECKS = new ProcessAlertChecks(RULE, PATIENCE);

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
            CHECKS.watchIdleTransactions(api, hook.url("/fleet"), SOURCE, PG.connStr("alerts_fleet"));
            idle.setAutoCommit(false);
            statement.execute("select txid_current()");

            String owner = Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(250))
                    .until(AlertsAcrossAFleetTest::owner, o -> o != null);
            PgharvestProcess holder = owner.equals("a") ? a : b;
            PgharvestProcess other = holder == a ? b : a;
            JsonNode firing = CHECKS.awaitFiring(holder.api());
            Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                    .until(() -> CHECKS.notifications(hook, "firing").size() == 1);
            // Both instances run an outbox dispatcher on the shared store: still one, some rounds later.
            Awaitility.await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(250)).until(() -> CHECKS.notifications(hook, "firing").size() == 1);
            Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> holder.api()
                    .get("/api/v1/alert-receivers/hook/notifications").json().valueStream()
                    .anyMatch(n -> n.toString().contains("delivered")));

            holder.kill();
            Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(250))
                    .until(() -> otherThan(owner, owner()));
            JsonNode takenOver = CHECKS.awaitFiring(other.api());
            assertThat(takenOver.get("firingSince").asString()).isEqualTo(firing.get("firingSince").asString());
            Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(250)).until(() -> CHECKS.notifications(hook, "firing").size() == 1);

            idle.commit();
            Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                    .until(() -> CHECKS.notifications(hook, "resolved").size() == 1);
            assertThat(CHECKS.notifications(hook, "resolved").getFirst().json().get("fingerprint"))
                    .isEqualTo(CHECKS.notifications(hook, "firing").getFirst().json().get("fingerprint"));
            assertThat(CHECKS.notifications(hook, "firing")).hasSize(1);
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
}
