package io.pgharvest.support.plugin;

import java.util.List;

/**
 * What the settings record of a kind of plug-in answers about itself once bound (absent options
 * already defaulted in its compact constructor).
 */
public interface PluginSettings {

    /**
     * Every problem, each starting with the option's full path under {@code prefix} (e.g.
     * {@code pgharvest.sinks[0].url} or {@code urls[1]}); never quotes a secret back.
     */
    List<String> problems(String prefix);
}
