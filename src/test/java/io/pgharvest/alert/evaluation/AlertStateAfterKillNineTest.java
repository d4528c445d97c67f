package io.pgharvest.alert.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.alert.notify.dispatch.TestWebhook;
import io.pgharvest.api.ApiClient;
import io.pgharvest.store.postgres.PostgresStores;
import io.pgharvest.testsupport.PgharvestProcess;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * {@code kill -9} of pgharvest while an alert fires, on the file store and on the PostgreSQL store:
 * pgharvest in a JVM of its own evaluates a real server's idle-in-transaction session and tells a
 * webhook; killed once the firing was delivered and started again on the same store, it shows the
 * alert firing since the same moment without notifying it again, and sends the resolution when the
 * transaction ends.
 */
class AlertStateAfterKillNineTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final String SOURCE = "k9-src";
    private static final String RULE = "k9-idle";
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final ProcessAlertChecks CHECKS = new ProcessAlertChecks(RULE, PATIENCE);

    @TempDir
    Path dataDir;

    @ParameterizedTest(name = "{0} store")
    @ValueSource(strings = {"file", "postgres"})
    void afterKillNineAFiringAlertIsNotNotifiedAgainAndItsResolutionArrives(String store) throws Exception {
        PG.createDatabase("alerts_k9");
        List<String> arguments = new ArrayList<>(List.of("--pgharvest.sinks[0].type=jsonfile",
                "--pgharvest.alert.notifications.poll-interval=200ms"));
        if (store.equals("postgres")) {
            arguments.add("--pgharvest.store.url=" + PostgresStores.newDatabase("alerts_k9_store"));
            // the same id again after the restart: it adopts its lease instead of waiting for it to expire
            arguments.add("--pgharvest.fleet.instance-id=k9-collector");
        }
        String[] args = arguments.toArray(String[]::new);
        try (var hook = new TestWebhook(); Connection idle = PG.connect("alerts_k9");
                Statement statement = idle.createStatement()) {
            JsonNode firing;
            try (var first = PgharvestProcess.start(dataDir, args)) {
                ApiClient api = first.api();
                CHECKS.watchIdleTransactions(api, hook.url("/k9"), SOURCE, PG.connStr("alerts_k9"));
                idle.setAutoCommit(false);
                statement.execute("select txid_current()");

                firing = CHECKS.awaitFiring(api);
                Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                        .until(() -> CHECKS.notifications(hook, "firing").size() == 1);
                // marked delivered: a kill before that would send it again, by design (at least once)
                Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> api
                        .get("/api/v1/alert-receivers/hook/notifications").json().valueStream()
                        .anyMatch(n -> n.toString().contains("delivered")));
                first.kill();
            }

            try (var second = PgharvestProcess.start(dataDir, args)) {
                ApiClient api = second.api();
                // Collecting again: the idle session still holds, and the alert was never forgotten.
                JsonNode again = CHECKS.awaitFiring(api);
                assertThat(again.get("firingSince").asString()).isEqualTo(firing.get("firingSince").asString());
                assertThat(again.get("activeSince").asString()).isEqualTo(firing.get("activeSince").asString());
                Awaitility.await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(250)).until(() -> CHECKS.notifications(hook, "firing").size() == 1);

                idle.commit();
                Awaitility.await().atMost(PATIENCE).pollInterval(Duration.ofMillis(200))
                        .until(() -> CHECKS.notifications(hook, "resolved").size() == 1);
                TestWebhook.Received resolved = CHECKS.notifications(hook, "resolved").getFirst();
                TestWebhook.Received fired = CHECKS.notifications(hook, "firing").getFirst();
                assertThat(resolved.json().get("fingerprint")).isEqualTo(fired.json().get("fingerprint"));
                assertThat(resolved.json().get("startsAt")).isEqualTo(fired.json().get("startsAt"));
                assertThat(CHECKS.notifications(hook, "firing")).hasSize(1);
                assertThat(second.log()).doesNotContain("Exception in thread");
            }
        }
    }
}
