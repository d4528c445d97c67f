package io.pgharvest.reaper.schedule;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Looks at every idle session of the service from one thread, once a period, and wakes only the
 * reapers whose server sent something: a stopped server then reads as down within a period or two,
 * whatever the metrics' intervals, while a fleet of healthy sources costs one wake-up a period in
 * all. (Each reaper waking every 2 s to look itself cost as much CPU as collecting at 60 sources,
 * most of it the wake-ups.)
 *
 * <p>Threading: reapers call {@link #asleep} and {@link #awake} from their own threads; the watch's
 * virtual thread calls {@link Sleeper#anythingArrived} and {@link Sleeper#wakeToLook}, which must
 * not block. A reaper that wakes while the watch is looking may be woken once more for nothing: it
 * then looks at its session the slow way once.
 */
public final class IdleSessionWatch {

    /** A reaper asleep between ticks, as the watch sees it. */
    public interface Sleeper {

        /** Whether its idle session received anything; without reading, from the watch's thread. */
        boolean anythingArrived();

        /** Wakes the reaper to look at its session on its own thread. */
        void wakeToLook();
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

    /** {@code sleeper} sleeps until its next tick; the watch looks at it until {@link #awake}. */
    public void asleep(Sleeper sleeper) {
        asleep.add(sleeper);
        ensureRunning();
    }

    public void awake(Sleeper sleeper) {
        asleep.remove(sleeper);
    }

    /** Ends the watch's thread; a later {@link #asleep} starts it again. */
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
                        arrived = sleeper.anythingArrived();
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
