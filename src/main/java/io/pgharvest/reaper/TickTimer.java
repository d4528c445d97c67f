package io.pgharvest.reaper;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The reaper's source of time and its way to sleep, injected so tests can drive the schedule
 * with a manual clock and observe exactly when a reaper wakes.
 */
interface TickTimer {

    Instant now();

    /**
     * Sleeps until {@code deadline} or until {@code signal} is raised.
     *
     * @return true when woken by the signal before the deadline
     */
    boolean sleepUntil(Instant deadline, WakeSignal signal) throws InterruptedException;

    /** The production timer on a {@link Clock}; sleeps park the (virtual) thread. */
    static TickTimer system(Clock clock) {
        return new TickTimer() {
            @Override
            public Instant now() {
                return clock.instant();
            }

            @Override
            public boolean sleepUntil(Instant deadline, WakeSignal signal) throws InterruptedException {
                while (true) {
                    Duration remaining = Duration.between(clock.instant(), deadline);
                    if (signal.await(remaining)) {
                        return true;
                    }
                    // A wall-clock step backwards leaves time remaining: sleep again.
                    if (!clock.instant().isBefore(deadline)) {
                        return false;
                    }
                }
            }
        };
    }
}
