package io.pgharvest.support.plugin;

import java.util.Objects;

/**
 * One option of a kind of plug-in, as the API, the console and the docs list it.
 *
 * @param name the option's name in configuration, kebab-case (e.g. {@code partition-interval})
 * @param defaultValue what an absent option means, in words (e.g. {@code 14d}, {@code required})
 * @param meaning what the option does
 */
public record PluginOption(String name, String defaultValue, String meaning) {

    public PluginOption {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(meaning, "meaning");
    }
}
