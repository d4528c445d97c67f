package io.pgharvest.alert.notify.alertmanager;

import io.pgharvest.alert.notify.UrlChecks;
import io.pgharvest.support.plugin.PluginSettings;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * The options of an Alertmanager receiver.
 *
 * @param urls the base URL of every Alertmanager of the cluster (e.g. {@code http://am1:9093});
 *     each gets every alert, as Prometheus sends them (secrets: never shown)
 */
public record AlertmanagerSettings(List<String> urls) implements PluginSettings {

    public AlertmanagerSettings {
        urls = urls == null ? List.of() : List.copyOf(urls);
    }

    @Override
    public List<String> problems(String prefix) {
        var problems = new ArrayList<String>();
        if (urls.isEmpty()) {
            problems.add(prefix + ".urls is required: the base URL of every Alertmanager of the cluster");
        }
        var seen = new HashSet<String>();
        for (int i = 0; i < urls.size(); i++) {
            UrlChecks.check(prefix + ".urls[" + i + "]", urls.get(i), problems);
            if (urls.get(i) != null && !seen.add(urls.get(i).strip())) {
                problems.add(prefix + ".urls[" + i + "] is given twice");
            }
        }
        return problems;
    }
}
