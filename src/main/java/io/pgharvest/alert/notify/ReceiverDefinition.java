package io.pgharvest.alert.notify;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A receiver as the store keeps it: its name, its kind's type, its kind's options as given (JSON
 * values by option name, camelCase; secrets in clear: the store is the one place that keeps them)
 * and its route.
 */
public record ReceiverDefinition(String name, String type, Map<String, Object> options, ReceiverRoute route) {

    public ReceiverDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        options = options == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(options));
        route = route == null ? ReceiverRoute.EVERYTHING : route;
    }

    @Override
    public String toString() {
        // Options may hold secrets: never in a log line or an exception.
        return "ReceiverDefinition[name=" + name + ", type=" + type + ", options=" + options.keySet() + "]";
    }
}
