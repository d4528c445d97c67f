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
    /**
     * The server answered but pgharvest refused the session (a superuser login, or a privileged
     * role when privileged sources are refused); the reason is the last connection error. Retried
     * with back-off, since the role or the setting may change. Not a server that is down: no
     * {@code instance_up = 0} is published for it.
     */
    REFUSED,
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
