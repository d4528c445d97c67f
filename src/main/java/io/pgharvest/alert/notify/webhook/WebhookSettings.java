package io.pgharvest.alert.notify.webhook;

import io.pgharvest.alert.notify.UrlChecks;
import io.pgharvest.support.plugin.PluginSettings;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of a webhook receiver.
 *
 * @param url where each notification is POSTed as JSON (a secret: never shown)
 * @param secret when set, the key of the body's HMAC-SHA256 signature, sent hex-encoded in
 *     {@value WebhookReceiver#SIGNATURE_HEADER} as {@code sha256=<hex>} (a secret)
 */
public record WebhookSettings(String url, String secret) implements PluginSettings {

    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        UrlChecks.check(prefix + ".url", url, problems);
        if (secret != null && secret.length() < 16) {
            problems.add(prefix + ".secret must be at least 16 characters (an HMAC key anyone can guess signs nothing)");
        }
        return problems;
    }
}
