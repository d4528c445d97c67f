package io.pgharvest.alert.notify.email;

import static io.pgharvest.alert.notify.dispatch.Transitions.hostileFiring;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.pgharvest.alert.notify.DeliveryException;
import io.pgharvest.alert.notify.Receiver;
import jakarta.mail.internet.MimeMessage;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the e-mail receiver sends, received by GreenMail's SMTP server (with authentication): plain
 * text with a one-line subject, a hostile source's markup, ANSI codes and newlines as inert text;
 * a wrong password or a server without STARTTLS a failed delivery that sends nothing.
 */
class EmailReceiverTest {

    @RegisterExtension
    static final GreenMailExtension SMTP = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort())
            .withConfiguration(GreenMailConfiguration.aConfig().withUser("alerts@example.org", "alerts", "mail-password"));

    private final Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    private static Receiver receiver(Boolean startTls, String password) {
        return new EmailReceiverPlugin().create(new EmailSettings("127.0.0.1", SMTP.getSmtp().getPort(), startTls,
                "alerts", password, "pgharvest@example.org", List.of("alerts@example.org"), null));
    }

    /** A receiver of the STARTTLS front at {@code port}, trusting {@code certificate} (PEM; null: the JDK's). */
    private static Receiver startTlsReceiver(int port, String certificate) {
        var settings = new EmailSettings("127.0.0.1", port, true, "alerts", "mail-password", "pgharvest@example.org",
                List.of("alerts@example.org"), certificate);
        assertThat(settings.problems("email")).isEmpty();
        return new EmailReceiverPlugin().create(settings);
    }

    @Test
    void emailArrivesOverStartTlsWithASelfSignedCertificateNamedAsTrusted(@TempDir Path dir) throws Exception {
        SelfSigned certificate = SelfSigned.forLoopback(dir);
        try (var front = new StartTlsFront(certificate.serverContext(), SMTP.getSmtp().getPort())) {
            // the JDK's trust store does not know the certificate: nothing is sent, the password not quoted
            try (Receiver untrusting = startTlsReceiver(front.port(), null)) {
                assertThatThrownBy(() -> untrusting.send(hostileFiring(start))).isInstanceOf(DeliveryException.class)
                        .message().doesNotContain("mail-password");
            }
            assertThat(SMTP.getReceivedMessages()).isEmpty();

            try (Receiver receiver = startTlsReceiver(front.port(), certificate.pem())) {
                receiver.send(hostileFiring(start));
            }
            assertThat(SMTP.getReceivedMessages()).hasSize(1);
            MimeMessage mail = SMTP.getReceivedMessages()[0];
            assertThat(mail.getSubject()).startsWith("[FIRING] long_transaction on db1");
            assertThat(mail.getHeader("Message-ID")[0]).isEqualTo("<" + hostileFiring(start).notificationId()
                    + "@pgharvest>");
            // the session that carried it had switched to TLS (the failed one too, before its certificate check)
            assertThat(front.tlsProtocols()).last().asString().startsWith("TLS");
        }
    }

    @Test
    void aTrustedCertificateThatIsNotOneOrWithoutStartTlsIsAProblemNamingTheOption() {
        var notPem = new EmailSettings("127.0.0.1", 587, true, null, null, "pgharvest@example.org",
                List.of("alerts@example.org"), "not a certificate");
        assertThat(notPem.problems("email")).singleElement().asString().startsWith("email.trustedCertificate");
        var withoutTls = new EmailSettings("127.0.0.1", 587, false, null, null, "pgharvest@example.org",
                List.of("alerts@example.org"), "-----BEGIN CERTIFICATE-----");
        assertThat(withoutTls.problems("email")).singleElement().asString().contains("trustedCertificate is for STARTTLS");
    }

    @Test
    void emailArrivesAsPlainTextThroughAuthenticatedSmtpWithOneLineSubject() throws Exception {
        try (Receiver receiver = receiver(false, "mail-password")) {
            receiver.send(hostileFiring(start));
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
        try (Receiver receiver = receiver(false, "not-the-password")) {
            assertThatThrownBy(() -> receiver.send(hostileFiring(start))).isInstanceOf(DeliveryException.class)
                    .message().doesNotContain("not-the-password");
        }
        assertThat(SMTP.getReceivedMessages()).isEmpty();
    }

    @Test
    void emailThatRequiresStartTlsSendsNothingToAServerWithoutIt() {
        // startTls not given: its default, required.
        try (Receiver receiver = receiver(null, "mail-password")) {
            assertThatThrownBy(() -> receiver.send(hostileFiring(start))).isInstanceOf(DeliveryException.class)
                    .message().contains("STARTTLS").doesNotContain("mail-password");
        }
        assertThat(SMTP.getReceivedMessages()).isEmpty();
    }
}
