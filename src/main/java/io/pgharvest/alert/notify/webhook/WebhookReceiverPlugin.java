package io.pgharvest.alert.notify.webhook;

import io.pgharvest.alert.notify.AlertReceiverPlugin;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.util.List;
import java.util.Set;

/** The {@code webhook} receiver: a generic JSON POST, optionally HMAC-signed. */
public final class WebhookReceiverPlugin implements AlertReceiverPlugin<WebhookSettings> {

    private static final PluginKind<WebhookSettings> KIND = new PluginKind<>(FAMILY, "webhook",
            "POSTs each notification as JSON to a URL, optionally signed with an HMAC", WebhookSettings.class,
            List.of(new PluginOption("url", "required", "the http(s) URL notifications are POSTed to (secret)"),
                    new PluginOption("secret", "none: unsigned", "key of the HMAC-SHA256 of the body, sent hex in "
                            + WebhookReceiver.SIGNATURE_HEADER + " as sha256=<hex> (secret, 16 characters or more)")));

    @Override
    public PluginKind<WebhookSettings> kind() {
        return KIND;
    }

    @Override
    public Receiver create(WebhookSettings settings) {
        return new WebhookReceiver(settings);
    }

    @Override
    public Set<String> secretOptions() {
        return Set.of("url", "secret");
    }
}
