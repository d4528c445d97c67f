package io.pgharvest.reaper.schedule;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The reaper's source of time and its way to sleep, injected so tests can drive the schedule
 * with a manual clock and observe exactly when a reaper wakes.
 */
public interface TickTimer {

    Instant now();

    /**
     * Sleeps until {@code deadline} or until {@code signal} is raised.
     *
     * @return true when woken by the signal before the deadline
     */
    boolean sleepUntil(Instant deadline, WakeSignal signal) throws InterruptedException;

    /**
     * The production timer: monotonic. Time is the wall clock read once at creation plus the
     * elapsed {@link System#nanoTime()}, so a step of the system clock (an hour back, say) neither
     * stops every reaper until the clock catches up nor fires a burst of ticks; sleeps park the
     * (virtual) thread for the monotonic remainder. Measurement times follow: they keep counting
     * from the start of the process (NTP's slewing moves both clocks alike; only a step makes
     * them differ, until the next start).
     */
    static TickTimer system(Clock clock) {
        return monotonic(clock.instant(), System::nanoTime);
    }

    /** A monotonic timer anchored at {@code anchor}, reading elapsed time from {@code nanoTime}. */
    static TickTimer monotonic(Instant anchor, java.util.function.LongSupplier nanoTime) {
        long anchorNanos = nanoTime.getAsLong();
        return new TickTimer() {
            @Override
            public Instant now() {
                return anchor.plusNanos(nanoTime.getAsLong() - anchorNanos);
            }

            @Override
            public boolean sleepUntil(Instant deadline, WakeSignal signal) throws InterruptedException {
                while (true) {
                    Duration remaining = Duration.between(now(), deadline);
                    if (remaining.isNegative() || remaining.isZero()) {
                        return false;
                    }
                    if (signal.await(remaining)) {
                        return true;
                    }
                }
            }
        };
    }
}
