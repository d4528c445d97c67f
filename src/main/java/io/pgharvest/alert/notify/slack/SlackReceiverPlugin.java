package io.pgharvest.alert.notify.slack;

import io.pgharvest.alert.notify.AlertReceiverPlugin;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import java.util.List;
import java.util.Set;

/** The {@code slack} receiver: a Slack incoming webhook. */
public final class SlackReceiverPlugin implements AlertReceiverPlugin<SlackSettings> {

    private static final PluginKind<SlackSettings> KIND = new PluginKind<>(FAMILY, "slack",
            "posts each notification to a Slack channel through an incoming webhook", SlackSettings.class,
            List.of(new PluginOption("url", "required", "the incoming webhook's URL (secret: it carries the token)")));

    @Override
    public PluginKind<SlackSettings> kind() {
        return KIND;
    }

    @Override
    public Receiver create(SlackSettings settings) {
        return new SlackReceiver(settings);
    }

    @Override
    public Set<String> secretOptions() {
        return Set.of("url");
    }
}
