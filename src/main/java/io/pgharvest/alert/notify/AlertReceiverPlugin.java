package io.pgharvest.alert.notify;

import io.pgharvest.support.plugin.Plugin;
import io.pgharvest.support.plugin.PluginSettings;
import java.util.Set;

/**
 * One kind of alert receiver (family {@value #FAMILY}): where notifications go. Each kind lives in
 * a sub-package of its own with its settings record, and is registered in
 * {@code META-INF/services/io.pgharvest.alert.notify.AlertReceiverPlugin}; the receivers API, the
 * console and docs/alerts.md learn the kind from the registry.
 *
 * @param <S> the settings record of the kind: a receiver's options, bound from the API's JSON body
 */
public interface AlertReceiverPlugin<S extends Record & PluginSettings> extends Plugin<S> {

    String FAMILY = "alert receiver";

    /** A receiver for {@code settings} (already validated); it may hold a client, released by {@link Receiver#close()}. */
    Receiver create(S settings);

    /**
     * The options (kebab-case) that hold secrets: never returned by the API (shown as the mask),
     * never logged, never quoted in a problem. A URL that embeds a token (Slack's, most webhooks')
     * is such a secret.
     */
    default Set<String> secretOptions() {
        return Set.of();
    }
}
