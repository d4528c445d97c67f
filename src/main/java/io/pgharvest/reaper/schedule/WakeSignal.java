package io.pgharvest.reaper.schedule;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One wake-up flag per reaper: config changes and stop requests raise it; the sleeping reaper
 * returns early. Signals do not accumulate: ten config changes during one sleep wake it once,
 * and it then re-plans from the newest configuration.
 */
public final class WakeSignal {

    private final Semaphore permit = new Semaphore(0);

    public void raise() {
        if (permit.availablePermits() == 0) {
            permit.release();
        }
    }

    /** Sleeps up to {@code timeout}; true when woken by {@link #raise()}. */
    public boolean await(Duration timeout) throws InterruptedException {
        boolean raised = timeout.isPositive() && permit.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)
                || permit.tryAcquire();
        permit.drainPermits();
        return raised;
    }
}
