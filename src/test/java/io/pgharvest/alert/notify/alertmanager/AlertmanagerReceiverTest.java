package io.pgharvest.alert.notify.alertmanager;

import io.pgharvest.alert.notify.ExternalSilences;
import io.pgharvest.alert.notify.LabelMatcher;
import io.pgharvest.alert.notify.OutboxEntry;
import io.pgharvest.alert.notify.Silence;
import io.pgharvest.alert.notify.dispatch.NotifyHarness;
import io.pgharvest.alert.notify.dispatch.TestWebhook;

import static io.pgharvest.alert.notify.dispatch.Transitions.firing;
import static io.pgharvest.alert.notify.dispatch.Transitions.resolved;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.alert.AlertTransition;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * pgharvest's alerts through a real Alertmanager (Debian's): visible in its {@code /api/v2/alerts}
 * with their labels, passed on to the webhook it routes to, resolved when pgharvest says so; its
 * silences listed; pgharvest's own silences not applied to it.
 */
class AlertmanagerReceiverTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dataDir;
    private TestWebhook routed;
    private TestAlertmanager alertmanager;
    private NotifyHarness harness;
    private final Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    @BeforeEach
    void start() {
        routed = new TestWebhook();
        alertmanager = TestAlertmanager.start(routed.url("/from-alertmanager"));
        harness = NotifyHarness.onFiles(dataDir);
        // A cluster of two, one of them down: one Alertmanager that accepts is enough.
        harness.addReceiver("am", "alertmanager", Map.of("urls", List.of(alertmanager.base(), "http://127.0.0.1:1")),
                null);
        harness.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        harness.close();
        alertmanager.close();
        routed.close();
    }

    @Test
    void alertsReachAlertmanagerWithTheirLabelsAndArePassedOnThenResolved() {
        AlertTransition firing = firing("replication_lag", "db-am", "critical", start);
        harness.notifications.transition(firing);

        await().atMost(WAIT).until(() -> alertmanager.alerts().stream().anyMatch(a -> isOurs(a, "db-am")));
        JsonNode alert = alertmanager.alerts().stream().filter(a -> isOurs(a, "db-am")).findFirst().orElseThrow();
        assertThat(alert.get("labels").get("severity").asString()).isEqualTo("critical");
        assertThat(alert.get("annotations").get("summary").asString()).isEqualTo("replication_lag on db-am");
        assertThat(Instant.parse(alert.get("endsAt").asString())).isAfter(Instant.now());
        assertThat(alert.get("status").get("state").asString()).isEqualTo("active");

        await().atMost(WAIT).until(() -> routedStatuses("db-am").contains("firing"));

        harness.notifications.stillFiring(List.of(firing));
        await().atMost(WAIT).until(() -> harness.store.entries("am").stream()
                .anyMatch(e -> e.key().isResend() && e.status() == OutboxEntry.Status.DELIVERED));

        harness.notifications.transition(resolved(firing, Instant.now()));
        await().atMost(WAIT).until(() -> routedStatuses("db-am").contains("resolved"));
        assertThat(harness.store.entries("am")).extracting(e -> e.status())
                .containsOnly(OutboxEntry.Status.DELIVERED);
    }

    @Test
    void alertmanagersSilencesAreListedAndPgharvestsOwnDoNotStopItsAlerts() throws Exception {
        String id = alertmanager.silence("source", "db-silenced", "maintenance window");
        harness.store.createSilence(new Silence("ours", List.of(LabelMatcher.equal("source", "db-silenced")),
                start.minusSeconds(10), start.plusSeconds(3600), "dba", "", Silence.PGHARVEST));

        var external = (ExternalSilences) harness.catalog.receiver("am").orElseThrow().receiver();
        assertThat(external.silences()).singleElement().satisfies(s -> {
            assertThat(s.id()).isEqualTo(id);
            assertThat(s.origin()).isEqualTo(Silence.ALERTMANAGER);
            assertThat(s.comment()).isEqualTo("maintenance window");
            assertThat(s.matchers()).containsExactly(LabelMatcher.equal("source", "db-silenced"));
        });

        harness.notifications.transition(firing("xid_age", "db-silenced", "warning", start));
        await().atMost(WAIT).until(() -> alertmanager.alerts().stream().anyMatch(a -> isOurs(a, "db-silenced")));
        JsonNode alert = alertmanager.alerts().stream().filter(a -> isOurs(a, "db-silenced")).findFirst().orElseThrow();
        assertThat(alert.get("status").get("state").asString()).isEqualTo("suppressed");
        assertThat(alert.get("status").get("silencedBy").valueStream().map(JsonNode::asString)).containsExactly(id);
        assertThat(harness.store.entries("am")).singleElement()
                .satisfies(e -> assertThat(e.status()).isEqualTo(OutboxEntry.Status.DELIVERED));
    }

    private static boolean isOurs(JsonNode alert, String source) {
        return source.equals(alert.path("labels").path("source").asString(""));
    }

    private List<String> routedStatuses(String source) {
        return routed.received().stream().map(TestWebhook.Received::json)
                .filter(j -> j.path("alerts").valueStream().anyMatch(a -> isOurs(a, source)))
                .map(j -> j.get("status").asString()).toList();
    }
}
