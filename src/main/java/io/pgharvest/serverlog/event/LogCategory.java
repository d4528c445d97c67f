package io.pgharvest.serverlog.event;

import java.util.Locale;

/**
 * The kinds of event read from the server log, each the metric of the same name
 * ({@code log_autovacuum} ...). Counted categories deliver one row per distinct event and tick
 * with its {@code count}; the others one row per event.
 */
public enum LogCategory {
    AUTOVACUUM(false),
    CHECKPOINTS(false),
    LOCK_WAITS(false),
    DEADLOCKS(false),
    TEMP_FILES(false),
    ERRORS(true),
    CONNECTION_FAILURES(true),
    SLOW_STATEMENTS(false),
    PLANS(false),
    SERVER_EVENTS(false);

    private final boolean counted;

    LogCategory(boolean counted) {
        this.counted = counted;
    }

    /** The metric's name: {@code log_} and the category in lower case. */
    public String metric() {
        return "log_" + name().toLowerCase(Locale.ROOT);
    }

    /** Whether equal events of one tick are one row with a {@code count}. */
    public boolean counted() {
        return counted;
    }
}
