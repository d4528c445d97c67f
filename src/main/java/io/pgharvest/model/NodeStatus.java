package io.pgharvest.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** On which server role a metric is collected. */
public enum NodeStatus {
    ANY, PRIMARY, STANDBY;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Accepts pgwatch's spellings; blank means {@link #ANY}. */
    @JsonCreator
    public static NodeStatus fromLabel(String label) {
        if (label == null || label.isBlank()) {
            return ANY;
        }
        return switch (label.trim().toLowerCase(Locale.ROOT)) {
            case "any" -> ANY;
            case "primary", "master" -> PRIMARY;
            case "standby", "replica" -> STANDBY;
            default -> throw new IllegalArgumentException(
                    "unknown node status '" + label + "', expected any, primary or standby");
        };
    }

    /** Whether a metric with this status runs on a server whose recovery state is given. */
    public boolean matches(boolean inRecovery) {
        return this == ANY || (this == STANDBY) == inRecovery;
    }
}
