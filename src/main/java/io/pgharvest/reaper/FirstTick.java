package io.pgharvest.reaper;

import io.pgharvest.reaper.schedule.TickTimer;
import io.pgharvest.reaper.schedule.WakeSignal;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Where a reaper's first tick is placed, as the service says before the reaper starts: after the
 * previous owner's last tick of a source taken over from another instance ({@link #resumeAfter}), at
 * once for a source handed over within this process ({@link #collectAtOnce}), and after the early
 * first ticks of its server ({@link #logInAfter}). Exists because this state is written by the
 * service's thread and used up once by the reaper's (every field is volatile and cleared when used).
 */
final class FirstTick {

    /** The longest a reaper's first login waits for its server's early first ticks ({@link #logInAfter}). */
    static final Duration LOGIN_HOLD_LIMIT = Duration.ofSeconds(5);

    /**
     * Used at the first plan: the previous owner's last tick of a source taken over from another
     * instance, or {@link Instant#EPOCH} from {@link #collectAtOnce}.
     */
    private volatile Instant previousOwnerTick;
    /** Set by {@link #collectAtOnce} until the first tick is over. */
    private volatile Runnable afterFirstTick;
    /** Set by {@link #logInAfter}: the first login waits for it (at most {@link #LOGIN_HOLD_LIMIT}). */
    private volatile CompletableFuture<Void> loginGate;
    /** The reaper's: raised when the login gate opens. */
    private final WakeSignal wake;

    FirstTick(WakeSignal wake) {
        this.wake = wake;
    }

    /** The source's previous owner (another instance) last ticked at {@code lastTick}. */
    void resumeAfter(Instant lastTick) {
        previousOwnerTick = lastTick;
    }

    /**
     * The grid point that passed last runs as soon as the session is open, instead of the first
     * tick waiting up to a period for the next one; {@code after} runs once that tick is over (or
     * the reaper stops before it).
     */
    void collectAtOnce(Runnable after) {
        previousOwnerTick = Instant.EPOCH;
        this.afterFirstTick = after;
    }

    /**
     * The first login waits until {@code gate} is done (the early first ticks of the server,
     * {@link io.pgharvest.reaper.schedule.EarlyStarts#settled}), at most {@link #LOGIN_HOLD_LIMIT}.
     * This reaper's first grid point is ahead anyway; its status shows STARTING meanwhile.
     */
    void logInAfter(CompletableFuture<Void> gate) {
        this.loginGate = gate;
        gate.thenRun(wake::raise);
    }

    /** The tick the schedule resumes after, once (null when there is none or it was used). */
    Instant takePreviousOwnerTick() {
        Instant previous = previousOwnerTick;
        if (previous != null) {
            previousOwnerTick = null;
        }
        return previous;
    }

    /** Waits for the login gate, if any, at most {@link #LOGIN_HOLD_LIMIT} and not past a stop request. */
    void awaitLoginGate(TickTimer timer, BooleanSupplier stopRequested) throws InterruptedException {
        CompletableFuture<Void> gate = loginGate;
        if (gate == null) {
            return;
        }
        Instant until = timer.now().plus(LOGIN_HOLD_LIMIT);
        while (!gate.isDone() && !stopRequested.getAsBoolean() && timer.now().isBefore(until)) {
            timer.sleepUntil(until, wake);
        }
        loginGate = null;
    }

    /** The first tick is over (or will not come): runs what {@link #collectAtOnce} left, once. */
    void over() {
        Runnable after = afterFirstTick;
        if (after != null) {
            afterFirstTick = null;
            after.run();
        }
    }
}
