package io.pgharvest.source;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code GET /api/v1/sources/{name}/status} reports about one source.
 *
 * @param state what the source is doing; until the collection engine reports, only what is configured
 * @param metrics the metrics collected while the server is a primary, with their intervals in seconds
 * @param standbyMetrics the metrics collected while the server is in recovery
 * @param modifyIndex the store index at which the source's configuration last changed
 */
public record SourceStatus(
        String name,
        SourceKind kind,
        String group,
        boolean enabled,
        State state,
        Map<String, Integer> metrics,
        Map<String, Integer> standbyMetrics,
        long modifyIndex) {

    public SourceStatus {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
        standbyMetrics = Collections.unmodifiableMap(new LinkedHashMap<>(standbyMetrics));
    }

    /** The life of a source as seen by the status endpoint; the engine adds its runtime states. */
    public enum State {
        /** Enabled in the configuration; nothing is known about collection yet. */
        CONFIGURED,
        /** Disabled in the configuration: not collected. */
        DISABLED;

        @JsonValue
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
