package io.pgharvest.alert.notify.slack;

import io.pgharvest.alert.notify.UrlChecks;
import io.pgharvest.support.plugin.PluginSettings;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of a Slack receiver.
 *
 * @param url the incoming webhook's URL, which carries its token (a secret: never shown)
 */
public record SlackSettings(String url) implements PluginSettings {

    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        UrlChecks.check(prefix + ".url", url, problems);
        return problems;
    }
}
