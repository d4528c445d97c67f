package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.DeliveryException;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.alert.notify.ReceiverDefinition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.pgharvest.alert.AlertTransition;
import jakarta.mail.internet.MimeMessage;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What each direct receiver puts on the wire, received by real servers: Slack's incoming-webhook
 * format from a JDK HTTP server, mail from GreenMail's SMTP server (with authentication). Values
 * holding markup, Slack's control characters, ANSI codes and newlines arrive as inert text.
 */
class ReceiverFormatsTest {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort())
            .withConfiguration(GreenMailConfiguration.aConfig().withUser("alerts@example.org", "alerts", "mail-password"));

    /** A source name as a hostile database could make it: a mention, markup, ANSI red, a forged line. */
    private static final String HOSTILE = "db1 <!channel> <b>&amp;</b> \u001b[31mred\u001b[0m\nSubject: forged";
    private final Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    private AlertTransition hostileFiring() {
        var labels = new LinkedHashMap<String, String>();
        labels.put("alertname", "long_transaction");
        labels.put("source", HOSTILE);
        labels.put("severity", "critical");
        return new AlertTransition("fp-hostile", AlertTransition.State.FIRING, labels,
                Map.of("summary", "open for 2h on " + HOSTILE, "runbook", "https://runbooks.example.org/long"),
                start, start.plusSeconds(240), "7200");
    }

    private static Receiver receiver(String type, Map<String, Object> options) {
        return new ReceiverBinder(NotifyHarness.REGISTRY).bind(new ReceiverDefinition("r", type, options, null)).create();
    }

    @Test
    void slackGetsItsFormatWithControlCharactersEscapedAndNothingLive() throws Exception {
        try (var slack = new TestWebhook(); Receiver receiver = receiver("slack", Map.of("url", slack.url("/services/T0/B0/x")))) {
            receiver.send(hostileFiring());

            TestWebhook.Received received = slack.received().getFirst();
            assertThat(received.path()).isEqualTo("/services/T0/B0/x");
            String text = received.json().get("text").asString();
            assertThat(received.json().get("mrkdwn").asBoolean()).isFalse();
            assertThat(text).startsWith("[FIRING] long_transaction on db1 &lt;!channel&gt; &lt;b&gt;&amp;amp;&lt;/b&gt;");
            assertThat(text).doesNotContain("<!channel>", "<b>", "\u001b").contains("\\u001b[31mred");
            // The source's newline is escaped: no line of the message starts with the forged header.
            assertThat(text.lines()).noneMatch(line -> line.startsWith("Subject:"));
            assertThat(text).contains("\\nSubject: forged", "value: 7200", "runbook: https://runbooks.example.org/long",
                    "severity = critical");
        }
    }

    @Test
    void emailArrivesAsPlainTextThroughAuthenticatedSmtpWithOneLineSubject() throws Exception {
        try (Receiver receiver = receiver("email", Map.of("host", "127.0.0.1", "port", SMTP.getSmtp().getPort(),
                "startTls", false, "username", "alerts", "password", "mail-password",
                "from", "pgharvest@example.org", "to", List.of("alerts@example.org")))) {
            receiver.send(hostileFiring());
        }

        MimeMessage[] messages = SMTP.getReceivedMessages();
        assertThat(messages).hasSize(1);
        MimeMessage mail = messages[0];
        assertThat(mail.getContentType()).startsWith("text/plain").containsIgnoringCase("charset=UTF-8");
        assertThat(mail.getSubject()).startsWith("[FIRING] long_transaction on db1 <!channel>")
                .doesNotContain("\n", "\r", "\u001b").contains("\\nSubject: forged");
        assertThat(mail.getHeader("Subject")).hasSize(1);
        String body = GreenMailUtil.getBody(mail);
        assertThat(body).contains("open for 2h on db1", "value: 7200", "\\u001b[31mred").doesNotContain("\u001b");
        assertThat(body.lines()).noneMatch(line -> line.startsWith("Subject:"));
    }

    @Test
    void emailWithAWrongPasswordIsAFailedDeliveryThatDoesNotQuoteThePassword() {
        try (Receiver receiver = receiver("email", Map.of("host", "127.0.0.1", "port", SMTP.getSmtp().getPort(),
                "startTls", false, "username", "alerts", "password", "not-the-password",
                "from", "pgharvest@example.org", "to", List.of("alerts@example.org")))) {
            assertThatThrownBy(() -> receiver.send(hostileFiring())).isInstanceOf(DeliveryException.class)
                    .message().doesNotContain("not-the-password");
        }
        assertThat(SMTP.getReceivedMessages()).isEmpty();
    }

    @Test
    void emailThatRequiresStartTlsSendsNothingToAServerWithoutIt() {
        try (Receiver receiver = receiver("email", Map.of("host", "127.0.0.1", "port", SMTP.getSmtp().getPort(),
                "username", "alerts", "password", "mail-password",
                "from", "pgharvest@example.org", "to", List.of("alerts@example.org")))) {
            assertThatThrownBy(() -> receiver.send(hostileFiring())).isInstanceOf(DeliveryException.class)
                    .message().doesNotContain("mail-password");
        }
        assertThat(SMTP.getReceivedMessages()).isEmpty();
    }

    @Test
    void unknownTypesOptionsAndBadValuesAreProblemsNamingTheField() {
        var binder = new ReceiverBinder(NotifyHarness.REGISTRY);
        assertThatThrownBy(() -> binder.bind(new ReceiverDefinition("x", "pagerduty", Map.of(), null)))
                .isInstanceOfSatisfying(NotifyInputException.class, e -> assertThat(e.problems())
                        .extracting(p -> p.field()).containsExactly("type"));
        assertThatThrownBy(() -> binder.bind(new ReceiverDefinition("x", "webhook",
                Map.of("url", "http://h/", "colour", "red"), null)))
                .isInstanceOfSatisfying(NotifyInputException.class, e -> assertThat(e.problems())
                        .extracting(p -> p.field()).containsExactly("colour"));
        assertThatThrownBy(() -> binder.bind(new ReceiverDefinition("x", "email", Map.of("host", "smtp",
                "port", 70000, "from", "not an address", "to", List.of("a@example.org", "also not")), null)))
                .isInstanceOfSatisfying(NotifyInputException.class, e -> assertThat(e.problems())
                        .extracting(p -> p.field()).containsExactlyInAnyOrder("port", "from", "to[1]"));
        assertThatThrownBy(() -> binder.bind(new ReceiverDefinition("x", "alertmanager",
                Map.of("urls", List.of("http://am:9093", "ftp://secret-token@am2")), null)))
                .isInstanceOfSatisfying(NotifyInputException.class, e -> {
                    assertThat(e.problems()).extracting(p -> p.field()).containsExactly("urls[1]");
                    assertThat(e.getMessage()).doesNotContain("secret-token");
                });
    }
}
