package io.pgharvest.config.plugin;

import io.pgharvest.support.plugin.Plugin;
import io.pgharvest.support.plugin.PluginSettings;

/**
 * One entry of a list of plug-ins, bound and validated.
 *
 * @param property the entry's configuration path, e.g. {@code pgharvest.sinks[0]}
 * @param name the entry's unique name within its list
 * @param plugin the kind
 * @param common the options every entry of the list has
 * @param settings the kind's own options, an instance of the kind's settings class
 * @param <P> the extension point's plug-in interface
 * @param <C> the list's record of common options
 */
public record PluginEntry<P extends Plugin<?>, C extends Record & EntryOptions>(String property, String name,
        P plugin, C common, PluginSettings settings) {

    /** The same entry under another name. */
    PluginEntry<P, C> named(String other) {
        return new PluginEntry<>(property, other, plugin, common, settings);
    }
}
