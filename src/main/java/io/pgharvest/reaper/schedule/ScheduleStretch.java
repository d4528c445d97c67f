package io.pgharvest.reaper.schedule;

import io.pgharvest.support.Backoff;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Never amplify load on a slow server: after a slow tick (a timeout with no answer, or longer than
 * the tick period) the source's schedule is stretched by one period, doubling per consecutive
 * slow tick up to {@code pgharvest.reaper.max-stretch}; ticks due before the stretch ends send
 * nothing to the server. A tick that is not slow ends the stretch.
 *
 * <p>Threading: owned by the reaper's thread.
 */
public final class ScheduleStretch {

    private static final Logger log = LoggerFactory.getLogger(ScheduleStretch.class);

    private final String name;
    private final Duration maxStretch;
    /** Consecutive slow ticks; the stretch doubles with each. */
    private int slowStreak;
    /** Due ticks whose grid point is before this are skipped (null: not stretched). */
    private Instant stretchedUntil;
    private String reason;
    private String kind;
    private long stretchedTicks;

    public ScheduleStretch(String name, Duration maxStretch) {
        this.name = name;
        this.maxStretch = maxStretch;
    }

    /** Whether the tick due at {@code scheduledAt} falls in the stretch and sends nothing. */
    public boolean skips(Instant scheduledAt) {
        return stretchedUntil != null && scheduledAt.isBefore(stretchedUntil);
    }

    /** Counts a tick skipped by the stretch; returns the stretch's kind ({@code timeout}, {@code overrun}) for the meters. */
    public String skipped() {
        stretchedTicks++;
        return kind;
    }

    /**
     * After each tick of a connected source: stretches the schedule when the tick was slow, ends
     * the stretch when it was not.
     *
     * @param scheduledAt the tick's grid point
     * @param timeoutReason why a round trip of the tick timed out with no answer, or null
     */
    public void afterTick(TickSchedule schedule, Instant scheduledAt, String timeoutReason, Duration took) {
        if (schedule.isEmpty()) {
            return; // nothing scheduled, nothing to stretch
        }
        Duration period = schedule.period();
        String overrun = took.compareTo(period) > 0
                ? "tick took " + took.toMillis() + " ms, longer than its period of " + period.toMillis() + " ms"
                : null;
        if (timeoutReason == null && overrun == null) {
            slowStreak = 0;
            stretchedUntil = null;
            return;
        }
        slowStreak++;
        Duration delay = new Backoff(period, maxStretch.compareTo(period) < 0 ? period : maxStretch).after(slowStreak);
        stretchedUntil = scheduledAt.plus(period).plus(delay);
        kind = timeoutReason != null ? "timeout" : "overrun";
        reason = (timeoutReason != null ? timeoutReason : overrun) + "; ticks before " + stretchedUntil
                + " are skipped";
        if (slowStreak == 1 || Integer.bitCount(slowStreak) == 1) {
            log.warn("Source {}: {}", name, reason);
        }
    }

    public long stretchedTicks() {
        return stretchedTicks;
    }

    /** Why the schedule is (or was last) stretched and until when; null if never. */
    public String reason() {
        return reason;
    }
}
