package io.pgharvest.model;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** A named set of metrics with their collection intervals in seconds. */
public record Preset(String name, String description, Map<String, Integer> metrics) {

    public Preset {
        Objects.requireNonNull(name, "name");
        description = description == null ? "" : description;
        metrics = metrics == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(metrics));
    }
}
