package io.pgharvest.config.plugin;

import io.pgharvest.support.plugin.PluginSettings;

/**
 * The options every entry of one list of plug-ins has, whatever its type, bound to a record of the
 * list's own (for sinks: name, batching, queue, spill and retry bounds). The record has a
 * {@code type} component (the kind, checked against the registry by {@link PluginEntries}) and a
 * {@code name}; its {@link #problems} check only what it holds itself.
 */
public interface EntryOptions extends PluginSettings {

    /** The kind, as given in the entry. */
    String type();

    /** The entry's own name, or null for the default (the type, or type-index when a type repeats). */
    String name();
}
