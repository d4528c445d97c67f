package io.pgharvest.config.plugin;

import java.util.List;

/** A list of plug-ins cannot be used as configured; every problem names its entry and option. */
public final class PluginConfigurationException extends IllegalArgumentException {

    private final List<String> problems;

    PluginConfigurationException(String family, List<String> problems) {
        super("Invalid " + family + " configuration: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** One line per problem, each starting with the option's path, e.g. {@code pgharvest.sinks[1].url}. */
    public List<String> problems() {
        return problems;
    }
}
