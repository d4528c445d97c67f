package io.pgharvest.reaper;

import io.pgharvest.reaper.schedule.TickTimer;
import io.pgharvest.reaper.schedule.WakeSignal;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reaper's thread and its supervisor. Lifecycle: {@link #start} once, {@link #stop()}
 * (non-blocking) then {@link #awaitStop(Duration)}, which interrupts a tick that does not finish in
 * time. A body that fails unexpectedly (also while starting: reading the configuration,
 * connecting) is reported through {@link Body#failed}, counted and started again after a capped
 * back-off; it never ends unseen.
 *
 * <p>Exists apart from {@link SourceReaper} because this is the state other threads touch (the
 * thread, the stop request, the failure being backed off, all volatile or atomic), while the
 * reaper's own state belongs to the thread alone.
 */
final class ReaperThread {

    /** Its lines are the reaper's: the same logger as {@link SourceReaper}'s own. */
    private static final Logger log = LoggerFactory.getLogger(SourceReaper.class);

    /** What the thread runs; every method is called on the thread. */
    interface Body {
        /** Starts (again): the configuration read and the session opened. */
        void begin() throws InterruptedException;

        /** One turn of the loop; called again and again until a stop is requested. */
        void turn() throws InterruptedException;

        /** The body failed unexpectedly; it is started again after the back-off. */
        void failed();

        /** The thread ends (stopped or interrupted); called last, whatever happened. */
        void ended();
    }

    private final String name;
    private final ReaperContext context;
    private final TickTimer timer;
    private final WakeSignal wake;
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile boolean stopRequested;
    private volatile Thread thread;
    /** Set while the supervisor waits to restart a failed body. */
    private volatile String failure;

    ReaperThread(String name, ReaperContext context, TickTimer timer, WakeSignal wake) {
        this.name = name;
        this.context = context;
        this.timer = timer;
        this.wake = wake;
    }

    void start(Body body) {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("reaper of source " + name + " was already started");
        }
        Thread t = context.threadFactory().newThread(() -> supervise(body));
        t.setName("reaper-" + name);
        thread = t;
        t.start();
    }

    /** Asks the body to stop after its current turn; does not wait. */
    void stop() {
        stopRequested = true;
        wake.raise();
    }

    boolean stopRequested() {
        return stopRequested;
    }

    /** Why the body failed, while the supervisor waits to start it again; else null. */
    String failure() {
        return failure;
    }

    /**
     * Waits for the thread to end; a tick still running after {@code timeout} is abandoned
     * (the thread is interrupted, which closes its socket).
     *
     * @return true when the thread has ended
     */
    boolean awaitStop(Duration timeout) throws InterruptedException {
        Thread t = thread;
        if (t == null) {
            return true;
        }
        if (!t.join(timeout)) {
            t.interrupt();
            return t.join(Duration.ofSeconds(2));
        }
        return true;
    }

    private void supervise(Body body) {
        int failures = 0;
        try {
            while (!stopRequested) {
                try {
                    body.begin();
                    while (!stopRequested) {
                        body.turn();
                        failures = 0;
                    }
                } catch (RuntimeException | Error e) {
                    failures++;
                    Duration delay = context.reconnectBackoff().after(failures);
                    context.meters().reaperRestarted();
                    failure = "reaper failed, restarting in " + delay.toMillis() + " ms: " + e;
                    log.error("Source {}: reaper loop failed, restarting it in {}", name, delay, e);
                    body.failed();
                    timer.sleepUntil(timer.now().plus(delay), wake);
                    failure = null;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            body.ended();
        }
    }
}
