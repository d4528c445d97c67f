package io.pgharvest.alert.notify.email;

import io.pgharvest.support.plugin.PluginSettings;
import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of an e-mail receiver.
 *
 * @param host the SMTP server
 * @param port its port; default 587 (submission)
 * @param startTls whether the connection must switch to TLS (STARTTLS) before anything is sent;
 *     default true: without it, the password and the alerts cross the network in clear
 * @param username the SMTP login, when the server wants one
 * @param password its password (a secret: never shown)
 * @param from the sender address
 * @param to the recipients
 * @param trustedCertificate with STARTTLS: a PEM certificate (the server's own, self-signed, or a
 *     private CA's) trusted instead of the JDK's trust store; the host name is still checked. None:
 *     the JDK's trust store. Explicit so that no receiver trusts a certificate nobody named.
 */
public record EmailSettings(String host, Integer port, Boolean startTls, String username, String password,
        String from, List<String> to, String trustedCertificate) implements PluginSettings {

    public EmailSettings {
        port = port == null ? 587 : port;
        startTls = startTls == null || startTls;
        to = to == null ? List.of() : List.copyOf(to);
    }

    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        if (host == null || host.isBlank() || host.chars().anyMatch(ch -> ch <= ' ')) {
            problems.add(prefix + ".host is required: the SMTP server's name or address");
        }
        if (port < 1 || port > 65535) {
            problems.add(prefix + ".port must be between 1 and 65535");
        }
        if ((username == null) != (password == null)) {
            problems.add(prefix + ".username and password go together (SMTP authentication)");
        }
        if (trustedCertificate != null) {
            if (!startTls) {
                problems.add(prefix + ".trustedCertificate is for STARTTLS: set startTls true or leave it out");
            } else if (ServerTrust.parse(trustedCertificate).isEmpty()) {
                problems.add(prefix + ".trustedCertificate must be one PEM X.509 certificate"
                        + " (-----BEGIN CERTIFICATE----- ...)");
            }
        }
        checkAddress(prefix + ".from", from, problems);
        if (to.isEmpty()) {
            problems.add(prefix + ".to is required: at least one recipient");
        }
        for (int i = 0; i < to.size(); i++) {
            checkAddress(prefix + ".to[" + i + "]", to.get(i), problems);
        }
        return problems;
    }

    private static void checkAddress(String option, String address, List<String> problems) {
        if (address == null || address.isBlank()) {
            problems.add(option + " is required: an e-mail address");
            return;
        }
        try {
            new InternetAddress(address, true).validate();
        } catch (AddressException e) {
            problems.add(option + " is not a valid e-mail address");
        }
    }
}
