package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.LabelMatcher;
import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.OutboxEntry;
import io.pgharvest.alert.notify.ReceiverRoute;
import io.pgharvest.alert.notify.Silence;

import static io.pgharvest.alert.notify.dispatch.Transitions.firing;
import static io.pgharvest.alert.notify.dispatch.Transitions.resolved;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.alert.AlertTransition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbox's promises on each store back-end, end to end through a real webhook server:
 * exactly once per transition, through outages and restarts, silences and routes honoured.
 */
public abstract class OutboxContractTest {

    private static final String SECRET = "a-webhook-secret-of-some-length";
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static final java.util.concurrent.atomic.AtomicInteger HOOKS = new java.util.concurrent.atomic.AtomicInteger();

    protected TestWebhook webhook;
    /** This test's receiver: its own name, so that tests may share a database. */
    protected final String hook = "hook" + HOOKS.incrementAndGet();
    protected NotifyHarness harness;
    private final Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    /** A store on the same files or database as every other call of this test returned (a restart reads it again). */
    protected abstract NotifyStore openStore();

    @BeforeEach
    protected void startWebhook() {
        webhook = new TestWebhook();
        harness = new NotifyHarness(openStore());
        harness.addReceiver(hook, "webhook", Map.of("url", webhook.url("/hook"), "secret", SECRET), null);
        harness.start();
    }

    @AfterEach
    protected void stop() throws InterruptedException {
        harness.close();
        webhook.close();
    }

    @Test
    void webhookGetsFiringThenResolvedOnceEachWithAValidHmac() {
        AlertTransition firing = firing("long_transaction", "db1", "warning", start);
        harness.notifications.transition(firing);
        harness.notifications.transition(resolved(firing, start.plusSeconds(60)));

        await().atMost(WAIT).until(() -> webhook.received().size() == 2);
        List<TestWebhook.Received> received = webhook.received();
        assertThat(received).extracting(r -> r.json().get("status").asString()).containsExactly("firing", "resolved");
        assertThat(received.getFirst().json().get("labels").get("source").asString()).isEqualTo("db1");
        assertThat(received.get(1).json().get("endsAt").asString()).isEqualTo(start.plusSeconds(60).toString());
        for (TestWebhook.Received r : received) {
            assertThat(r.header("X-Pgharvest-Signature")).isEqualTo("sha256=" + hmac(r.body()));
        }
        awaitAllFinished(hook);
        assertThat(webhook.received()).hasSize(2);
    }

    @Test
    void aTransitionHandedOverTwiceIsSentOnce() {
        AlertTransition firing = firing("xid_age", "db2", "critical", start);
        harness.notifications.transition(firing);
        harness.notifications.transition(firing);
        harness.notifications.transition(firing("xid_age", "db3", "critical", start));

        await().atMost(WAIT).until(() -> webhook.received().size() >= 2);
        awaitAllFinished(hook);
        assertThat(webhook.received()).extracting(r -> r.json().get("labels").get("source").asString())
                .containsExactlyInAnyOrder("db2", "db3");
        assertThat(harness.store.entries(hook)).hasSize(2);
    }

    @Test
    void aReceiverDownForAWhileGetsEachTransitionExactlyOnceWhenBack() {
        webhook.down(true);
        AlertTransition firing = firing("replication_lag", "db4", "critical", start);
        harness.notifications.transition(firing);
        await().atMost(WAIT).until(() -> webhook.refused() >= 3); // retried with back-off while down
        harness.notifications.transition(resolved(firing, start.plusSeconds(30)));
        assertThat(webhook.received()).isEmpty();

        webhook.down(false);
        await().atMost(WAIT).until(() -> webhook.received().size() == 2);
        awaitAllFinished(hook);
        assertThat(webhook.received()).extracting(r -> r.json().get("status").asString())
                .containsExactly("firing", "resolved");
        // The firing was retried while the receiver was down; its resolution waited behind it, in order.
        assertThat(harness.store.entries(hook)).extracting(OutboxEntry::attempts)
                .satisfies(attempts -> assertThat(attempts.getFirst()).isGreaterThanOrEqualTo(3));
    }

    @Test
    void aRestartDeliversWhatWasPendingOnceAndNothingDeliveredAgain() throws InterruptedException {
        harness.notifications.transition(firing("deadlocks", "db5", "warning", start));
        await().atMost(WAIT).until(() -> webhook.received().size() == 1);
        awaitAllFinished(hook);
        webhook.down(true);
        harness.notifications.transition(firing("deadlocks", "db6", "warning", start));
        await().atMost(WAIT).until(() -> webhook.refused() >= 1);

        harness.close(); // what a restart keeps is what the store has
        webhook.down(false);
        harness = new NotifyHarness(openStore()).start();

        await().atMost(WAIT).until(() -> webhook.received().size() == 2);
        awaitAllFinished(hook);
        assertThat(webhook.received()).extracting(r -> r.json().get("labels").get("source").asString())
                .containsExactly("db5", "db6");
    }

    /**
     * The one window of at-least-once: the receiver accepted a notification and the outbox lost the
     * mark (as a crash between the two would). The notification is sent again, with the same
     * notification id in the header and the body, so the receiver can drop the repeat; the alert's
     * resolution has an id of its own.
     */
    @Test
    void aSendWhoseMarkIsLostIsSentAgainWithTheSameNotificationId() throws InterruptedException {
        harness.close();
        harness = new NotifyHarness(losingTheFirstDeliveredMark(openStore())).start();
        AlertTransition firing = firing("lost_mark", "db-again", "warning", start);
        harness.notifications.transition(firing);
        await().atMost(WAIT).until(() -> webhook.received().size() == 2);
        awaitAllFinished(hook);
        harness.notifications.transition(resolved(firing, start.plusSeconds(60)));
        await().atMost(WAIT).until(() -> webhook.received().size() == 3);
        awaitAllFinished(hook); // nothing left for later tests' dispatchers to retry

        List<TestWebhook.Received> received = webhook.received();
        String id = received.getFirst().header("X-Pgharvest-Notification-Id");
        assertThat(id).isNotBlank().isEqualTo(firing.notificationId());
        assertThat(received.get(1).header("X-Pgharvest-Notification-Id")).isEqualTo(id);
        assertThat(received.subList(0, 2)).extracting(r -> r.json().get("notificationId").asString())
                .containsExactly(id, id);
        String resolvedId = received.get(2).json().get("notificationId").asString();
        assertThat(received.get(2).json().get("status").asString()).isEqualTo("resolved");
        assertThat(resolvedId).isNotEqualTo(id).isEqualTo(received.get(2).header("X-Pgharvest-Notification-Id"));
    }

    /** {@code store}, except that its first mark of a delivery fails, as if the process died before it. */
    private static NotifyStore losingTheFirstDeliveredMark(NotifyStore store) {
        var lost = new java.util.concurrent.atomic.AtomicBoolean();
        return (NotifyStore) java.lang.reflect.Proxy.newProxyInstance(NotifyStore.class.getClassLoader(),
                new Class<?>[] {NotifyStore.class}, (proxy, method, args) -> {
                    if (method.getName().equals("update") && args[0] instanceof OutboxEntry entry
                            && entry.status() == OutboxEntry.Status.DELIVERED && lost.compareAndSet(false, true)) {
                        throw new IllegalStateException("the process died before the outbox marked the delivery");
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void aSilencedTransitionIsNotSentAndIsRecordedAsSilenced() {
        harness.store.createSilence(new Silence("s1", List.of(LabelMatcher.equal("source", "db-quiet"),
                new LabelMatcher("alertname", "idle_.*", true, true)), start.minusSeconds(60), start.plusSeconds(3600),
                "dba", "maintenance", Silence.PGHARVEST));
        harness.notifications.transition(firing("idle_in_transaction", "db-quiet", "warning", start));
        harness.notifications.transition(firing("idle_in_transaction", "db-loud", "warning", start));

        await().atMost(WAIT).until(() -> webhook.received().size() == 1);
        awaitAllFinished(hook);
        assertThat(webhook.received().getFirst().json().get("labels").get("source").asString()).isEqualTo("db-loud");
        assertThat(harness.store.entries(hook)).filteredOn(e -> e.transition().labels().get("source").equals("db-quiet"))
                .singleElement().satisfies(e -> {
                    assertThat(e.status()).isEqualTo(OutboxEntry.Status.SILENCED);
                    assertThat(e.note()).contains("s1");
                });
    }

    @Test
    void aRouteLimitsWhatItsReceiverGets() {
        try (var critical = new TestWebhook()) {
            harness.addReceiver("pager", "webhook", Map.of("url", critical.url("/pager")),
                    new ReceiverRoute(List.of("critical"), List.of(new LabelMatcher("source", "prod-.*", true, true))));
            harness.notifications.transition(firing("connections", "prod-1", "warning", start));
            harness.notifications.transition(firing("connections", "prod-2", "critical", start));
            harness.notifications.transition(firing("connections", "test-1", "critical", start));

            await().atMost(WAIT).until(() -> webhook.received().size() == 3 && critical.received().size() == 1);
            awaitAllFinished("pager");
            assertThat(critical.received().getFirst().json().get("labels").get("source").asString()).isEqualTo("prod-2");
            assertThat(harness.store.entries("pager")).hasSize(1);
        }
    }

    protected void awaitAllFinished(String receiver) {
        await().atMost(WAIT).until(() -> harness.store.entries(receiver).stream()
                .noneMatch(e -> e.status() == OutboxEntry.Status.PENDING));
    }

    private static String hmac(byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
