package io.pgharvest.model;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** How a source's reaper runs one of its metrics, as reported in the source's status. */
public enum MetricLane {
    /** Sent with the other due metrics in the tick's one round trip. */
    PIPELINE,
    /** Isolated after a failure: run on its own, with back-off, so the pipeline stays whole. */
    SOLO,
    /** Its node status does not match the server's role: not collected. */
    NOT_FOR_ROLE,
    /** No SQL for the server's version: reported once, never attempted. */
    NO_SQL,
    /** Collected by pgharvest's own code (a native metric), after the tick's round trip. */
    NATIVE,
    /**
     * A native metric that cannot be collected for this source (host metrics of a server on another
     * machine, a server log pgharvest may not read); the metric's last error says why.
     */
    UNAVAILABLE;

    /** {@code pipeline}, {@code solo}, {@code not-for-role}, {@code no-sql}. */
    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Whether the metric runs at all (in either lane). */
    public boolean collected() {
        return this == PIPELINE || this == SOLO || this == NATIVE;
    }
}
