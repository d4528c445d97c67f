package io.pgharvest.alert.notify.webhook;

import static io.pgharvest.alert.notify.dispatch.Transitions.HOSTILE;
import static io.pgharvest.alert.notify.dispatch.Transitions.hostileFiring;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.alert.notify.DeliveryException;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.alert.notify.dispatch.TestWebhook;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * What the webhook receiver POSTs, received by a JDK HTTP server: JSON that keeps a hostile source
 * as data (no raw control character on the wire), signed with an HMAC the far end can recompute;
 * a refusal a failed delivery that names neither the URL nor the secret.
 */
class WebhookReceiverTest {

    private static final String SECRET = "a-webhook-secret-of-some-length";
    private final Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    @Test
    void theBodyIsSignedAndKeepsAHostileSourceAsInertData() throws Exception {
        try (var hook = new TestWebhook();
                Receiver receiver = new WebhookReceiverPlugin().create(new WebhookSettings(hook.url("/in"), SECRET))) {
            receiver.send(hostileFiring(start));

            TestWebhook.Received received = hook.received().getFirst();
            assertThat(received.path()).isEqualTo("/in");
            assertThat(received.header("Content-Type")).isEqualTo("application/json");
            assertThat(received.header("X-Pgharvest-Signature")).isEqualTo("sha256=" + hmac(received.body()));
            // JSON escapes the newline and the escape character: the wire has neither raw.
            assertThat(new String(received.body(), StandardCharsets.UTF_8)).doesNotContain("\n", "\u001b");
            assertThat(received.json().get("status").asString()).isEqualTo("firing");
            assertThat(received.json().get("fingerprint").asString()).isEqualTo("fp-hostile");
            assertThat(received.json().get("labels").get("source").asString()).isEqualTo(HOSTILE);
            assertThat(received.json().get("annotations").get("summary").asString()).isEqualTo("open for 2h on " + HOSTILE);
            assertThat(received.json().get("startsAt").asString()).isEqualTo(start.toString());
            assertThat(received.json().get("value").asString()).isEqualTo("7200");
        }
    }

    @Test
    void withoutASecretTheBodyIsNotSigned() throws Exception {
        try (var hook = new TestWebhook();
                Receiver receiver = new WebhookReceiverPlugin().create(new WebhookSettings(hook.url("/in"), null))) {
            receiver.send(hostileFiring(start));

            assertThat(hook.received()).singleElement()
                    .satisfies(r -> assertThat(r.header("X-Pgharvest-Signature")).isNull());
        }
    }

    @Test
    void aRefusalIsAFailedDeliveryNamingNeitherTheUrlNorTheSecret() {
        try (var hook = new TestWebhook();
                Receiver receiver = new WebhookReceiverPlugin().create(
                        new WebhookSettings(hook.url("/hook/token-abc123"), SECRET))) {
            hook.down(true);
            assertThatThrownBy(() -> receiver.send(hostileFiring(start))).isInstanceOf(DeliveryException.class)
                    .message().contains("503").doesNotContain("token-abc123", SECRET);
            assertThat(hook.refused()).isEqualTo(1);
        }
    }

    private static String hmac(byte[] body) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(body));
    }
}
