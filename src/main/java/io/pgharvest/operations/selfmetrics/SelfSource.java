package io.pgharvest.operations.selfmetrics;

import java.util.Objects;

/** The source name this instance publishes its own state under ({@link SelfMetrics#sourceName}). */
public record SelfSource(String name) {

    public SelfSource {
        Objects.requireNonNull(name, "name");
    }
}
