package io.pgharvest.alert.notify.slack;

import static io.pgharvest.alert.notify.dispatch.Transitions.hostileFiring;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.alert.notify.dispatch.TestWebhook;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

/**
 * What the Slack receiver puts on the wire, received by a JDK HTTP server standing in for Slack's
 * incoming webhook: its format, with markup, Slack's control characters, ANSI codes and newlines
 * of a hostile source arriving as inert text.
 */
class SlackReceiverTest {

    private final Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    @Test
    void slackGetsItsFormatWithControlCharactersEscapedAndNothingLive() throws Exception {
        try (var slack = new TestWebhook();
                Receiver receiver = new SlackReceiverPlugin().create(new SlackSettings(slack.url("/services/T0/B0/x")))) {
            receiver.send(hostileFiring(start));

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
}
