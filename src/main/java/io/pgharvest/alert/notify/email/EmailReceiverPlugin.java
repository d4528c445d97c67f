package io.pgharvest.alert.notify.email;

import io.pgharvest.alert.notify.AlertReceiverPlugin;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.util.List;
import java.util.Set;

/** The {@code email} receiver: plain-text mail over SMTP. */
public final class EmailReceiverPlugin implements AlertReceiverPlugin<EmailSettings> {

    private static final PluginKind<EmailSettings> KIND = new PluginKind<>(FAMILY, "email",
            "sends each notification as a plain-text mail over SMTP (STARTTLS, authentication)", EmailSettings.class,
            List.of(new PluginOption("host", "required", "the SMTP server"),
                    new PluginOption("port", "587", "the SMTP server's port"),
                    new PluginOption("start-tls", "true", "require STARTTLS before authenticating and sending"),
                    new PluginOption("username", "none", "the SMTP login (with password)"),
                    new PluginOption("password", "none", "the SMTP password (secret)"),
                    new PluginOption("from", "required", "the sender address"),
                    new PluginOption("to", "required", "the recipients, a list of addresses"),
                    new PluginOption("trusted-certificate", "the JDK's trust store", "with STARTTLS: a PEM"
                            + " certificate (the server's self-signed one or a private CA's) trusted instead")));

    @Override
    public PluginKind<EmailSettings> kind() {
        return KIND;
    }

    @Override
    public Receiver create(EmailSettings settings) {
        return new EmailReceiver(settings);
    }

    @Override
    public Set<String> secretOptions() {
        return Set.of("password");
    }
}
