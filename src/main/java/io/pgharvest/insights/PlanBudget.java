package io.pgharvest.insights;

import java.time.Duration;
import java.time.Instant;

/**
 * The time query_plans may spend planning for one source per hour: an hour starts with the first
 * plan after the previous hour ended, and once the hour's budget is spent no plan is started
 * until the next. A plan that is already running finishes (its statement timeout bounds it), so
 * an hour may overrun its budget by at most one plan. Used by the source's reaper thread only.
 */
final class PlanBudget {

    private static final Duration HOUR = Duration.ofHours(1);

    private final Duration perHour;
    private Instant hourStart;
    private Duration spent = Duration.ZERO;

    PlanBudget(Duration perHour) {
        this.perHour = perHour;
    }

    /** Whether a plan may start at {@code now}. */
    boolean allows(Instant now) {
        if (hourStart == null || !now.isBefore(hourStart.plus(HOUR))) {
            hourStart = now;
            spent = Duration.ZERO;
        }
        return spent.compareTo(perHour) < 0;
    }

    /** Counts the time a plan took against the current hour. */
    void spend(Duration took) {
        spent = spent.plus(took);
    }

    /** The time spent in the current hour. */
    Duration spent() {
        return spent;
    }
}
