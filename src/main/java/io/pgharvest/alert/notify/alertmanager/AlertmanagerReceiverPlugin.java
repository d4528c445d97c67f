package io.pgharvest.alert.notify.alertmanager;

import io.pgharvest.alert.notify.AlertReceiverPlugin;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.time.Clock;
import java.util.List;
import java.util.Set;

/** The {@code alertmanager} receiver: Prometheus Alertmanager's v2 API, one or more servers of a cluster. */
public final class AlertmanagerReceiverPlugin implements AlertReceiverPlugin<AlertmanagerSettings> {

    private static final PluginKind<AlertmanagerSettings> KIND = new PluginKind<>(FAMILY, "alertmanager",
            "sends alerts to Prometheus Alertmanager (v2 API), re-sent while firing; routing, grouping,"
                    + " silences and inhibition are Alertmanager's", AlertmanagerSettings.class,
            List.of(new PluginOption("urls", "required", "the base URL of every Alertmanager of the cluster, e.g."
                    + " [\"http://am1:9093\", \"http://am2:9093\"] (secret)")));

    @Override
    public PluginKind<AlertmanagerSettings> kind() {
        return KIND;
    }

    @Override
    public Receiver create(AlertmanagerSettings settings) {
        return new AlertmanagerReceiver(settings, Clock.systemUTC());
    }

    @Override
    public Set<String> secretOptions() {
        return Set.of("urls");
    }
}
