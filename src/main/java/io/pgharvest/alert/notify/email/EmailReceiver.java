package io.pgharvest.alert.notify.email;

import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.notify.DeliveryException;
import io.pgharvest.alert.notify.NotificationText;
import io.pgharvest.alert.notify.Receiver;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.time.Duration;
import java.util.Date;
import java.util.Properties;

/**
 * Sends each notification as a plain-text mail ({@code text/plain; charset=UTF-8}): no markup
 * is ever interpreted, and every value is one inert line ({@link NotificationText}), so the
 * subject cannot carry a forged header. With {@code startTls}, STARTTLS is required and the
 * server's certificate checked against the JDK's trust store (or the one {@code trustedCertificate}
 * names) and its name.
 */
final class EmailReceiver implements Receiver {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final EmailSettings settings;
    private final Session session;

    EmailReceiver(EmailSettings settings) {
        this.settings = settings;
        var properties = new Properties();
        properties.put("mail.smtp.host", settings.host());
        properties.put("mail.smtp.port", Integer.toString(settings.port()));
        properties.put("mail.smtp.auth", Boolean.toString(settings.username() != null));
        properties.put("mail.smtp.starttls.enable", settings.startTls().toString());
        properties.put("mail.smtp.starttls.required", settings.startTls().toString());
        properties.put("mail.smtp.ssl.checkserveridentity", "true");
        if (settings.startTls() && settings.trustedCertificate() != null) {
            // checked when the receiver was bound: a certificate that does not parse never gets here
            ServerTrust.parse(settings.trustedCertificate()).ifPresent(certificate ->
                    properties.put("mail.smtp.ssl.socketFactory", ServerTrust.trusting(certificate)));
        }
        properties.put("mail.smtp.connectiontimeout", Long.toString(TIMEOUT.toMillis()));
        properties.put("mail.smtp.timeout", Long.toString(TIMEOUT.toMillis()));
        properties.put("mail.smtp.writetimeout", Long.toString(TIMEOUT.toMillis()));
        this.session = Session.getInstance(properties);
    }

    @Override
    public void send(AlertTransition transition) throws DeliveryException {
        try {
            String id = transition.notificationId();
            var message = new MimeMessage(session) {
                @Override
                protected void updateMessageID() throws MessagingException {
                    // Stable per transition: a mail sent again is the same message to a mail system.
                    setHeader("Message-ID", "<" + id + "@pgharvest>");
                }
            };
            message.setHeader("X-Pgharvest-Notification-Id", id);
            message.setFrom(new InternetAddress(settings.from(), true));
            for (String recipient : settings.to()) {
                message.addRecipient(Message.RecipientType.TO, new InternetAddress(recipient, true));
            }
            message.setSubject(NotificationText.title(transition), "UTF-8");
            message.setSentDate(new Date());
            message.setText(String.join("\r\n", NotificationText.body(transition)) + "\r\n", "UTF-8", "plain");
            if (settings.username() == null) {
                Transport.send(message);
            } else {
                Transport.send(message, settings.username(), settings.password());
            }
        } catch (MessagingException e) {
            // The server's reply (its words, bounded), never the password.
            throw new DeliveryException("SMTP " + settings.host() + ":" + settings.port() + ": "
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage()));
        }
    }
}
