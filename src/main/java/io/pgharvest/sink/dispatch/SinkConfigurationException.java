package io.pgharvest.sink.dispatch;

import java.util.List;

/** {@code pgharvest.sinks} cannot be used as configured; every problem names its entry and option. */
public final class SinkConfigurationException extends IllegalArgumentException {

    private final List<String> problems;

    SinkConfigurationException(List<String> problems) {
        super("Invalid sink configuration: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** One line per problem, each starting with the option's path, e.g. {@code pgharvest.sinks[1].url}. */
    public List<String> problems() {
        return problems;
    }
}
