package io.pgharvest.model;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Where a source's reaper stands with its session to the source. */
public enum SessionState {
    /** The reaper runs but has not connected yet. */
    STARTING,
    /** The reaper holds a session to the source. */
    CONNECTED,
    /** The reaper cannot reach the source and retries with back-off. */
    DISCONNECTED,
    /** A tick has waited for the server's answer for longer than a tick period. */
    STALLED,
    /** The reaper's loop failed unexpectedly; it is restarted with back-off. */
    FAILED,
    /** The reaper has stopped. */
    STOPPED;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
