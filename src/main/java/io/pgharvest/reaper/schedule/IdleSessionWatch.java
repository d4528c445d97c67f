package io.pgharvest.reaper.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Looks at every idle session of the service from one thread, once a period, and wakes only the
 * reapers whose server sent something: a stopped server then reads as down within a period or two,
 * whatever the metrics' intervals, while a fleet of healthy sources costs one wake-up a period in
 * all. (Each reaper waking every 2 s to look itself cost as much CPU as collecting at 60 sources,
 * most of it the wake-ups.)
 *
 * <p>Threading: reapers call {@link #sleepUntil} from their own threads; the watch's virtual thread
 * asks their {@code arrived} suppliers, which must not block, and raises their wake signals. A reaper that wakes while the watch is looking may be woken once more for nothing: it
 * then looks at its session the slow way once.
 */
public final class IdleSessionWatch {

    /** A reaper asleep between ticks, as the watch sees it. */
    private static final class Sleeper {
        private final BooleanSupplier arrived;
        private final WakeSignal wake;
        private volatile boolean woken;

        Sleeper(BooleanSupplier arrived, WakeSignal wake) {
            this.arrived = arrived;
            this.wake = wake;
        }

        void wakeToLook() {
            woken = true;
            wake.raise();
        }
    }

    private final Duration period;
    private final TickTimer timer;
    /** Never raised: the watch is stopped by an interrupt. */
    private final WakeSignal never = new WakeSignal();
    private final Set<Sleeper> asleep = ConcurrentHashMap.newKeySet();
    private Thread thread;

    /** Looks every {@code period} of {@code timer}'s time (the reapers' own clock). */
    public IdleSessionWatch(Duration period, TickTimer timer) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("the idle-session watch needs a positive period, not " + period);
        }
        this.period = period;
        this.timer = timer;
    }

    /**
     * Sleeps as {@code timer.sleepUntil(until, wake)} while the watch looks, from its own thread,
     * whether anything {@code arrived} on the sleeper's idle session (without reading or blocking).
     *
     * @return true when the watch woke the sleeper because something arrived: the caller then looks
     *     at its session on its own thread
     */
    public boolean sleepUntil(TickTimer timer, Instant until, WakeSignal wake, BooleanSupplier arrived)
            throws InterruptedException {
        var sleeper = new Sleeper(arrived, wake);
        asleep.add(sleeper);
        ensureRunning();
        try {
            timer.sleepUntil(until, wake);
        } finally {
            asleep.remove(sleeper);
        }
        return sleeper.woken;
    }

    /** Ends the watch's thread; a later {@link #sleepUntil} starts it again. */
    public synchronized void stop() {
        if (thread != null) {
            thread.interrupt();
            thread = null;
        }
    }

    private synchronized void ensureRunning() {
        if (thread == null) {
            thread = Thread.ofVirtual().name("idle-session-watch").start(this::watch);
        }
    }

    private void watch() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                timer.sleepUntil(timer.now().plus(period), never);
                for (Sleeper sleeper : asleep) {
                    boolean arrived;
                    try {
                        arrived = sleeper.arrived.getAsBoolean();
                    } catch (RuntimeException e) {
                        arrived = true; // cannot tell: let the reaper look on its own thread
                    }
                    if (arrived) {
                        sleeper.wakeToLook();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stopped
        }
    }
}
