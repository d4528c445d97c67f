package io.pgharvest.lease;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This instance's side of the fencing rule, in memory: which sources it holds a lease for (and may
 * collect), which have a reaper here that has not stopped yet, which it is handing back, and for
 * a source just claimed the previous owner's last tick, and for a source whose reaper here stopped
 * its last tick until the lease is freed.
 *
 * <p>Threads: reaper-service threads ({@link #acquire}, {@link #holds}, {@link #released}), the
 * renew loop, hand-back threads and the stopping thread all come here. One {@link ReentrantLock}
 * guards every set and is never held during database I/O: a method that decides a lease must be
 * freed returns the sources, and the caller frees them after the lock is released. {@code leaving}
 * is set once, at shutdown, and read under the lock so that acquiring and leaving are atomic.
 */
final class HeldSources {

    /**
     * What {@link #settle} changed.
     *
     * @param gone sources another instance has taken over
     * @param freeAgain leases this instance gave up whose hand-back failed: free them again
     * @param changed whether {@link #holds} changed for some source
     */
    record Settled(Set<String> gone, Set<String> freeAgain, boolean changed) {
    }

    private final ReentrantLock lock = new ReentrantLock();
    /** Sources whose lease this instance holds and may collect. */
    private final Set<String> held = new HashSet<>();
    /** Sources with a reaper here that has not stopped yet. */
    private final Set<String> running = new HashSet<>();
    /** Of sources just claimed: the previous owner's last tick, until their reaper starts. */
    private final Map<String, Instant> previousTicks = new HashMap<>();
    /** Sources this instance gave up whose lease may still name it (until freed). */
    private final Set<String> handingBack = new HashSet<>();
    /**
     * Of sources whose reaper here stopped: the start of its last tick, until the lease is freed.
     * Kept here, not only passed along, because the lease may be freed by another path than the
     * stopped reaper's: the renew loop frees a handed-back source again ({@link #settle}) as soon
     * as no reaper runs it, possibly before the reaper's own free, and the next owner must learn
     * this tick from either, or it runs the last grid point a second time.
     */
    private final Map<String, Instant> lastTicks = new HashMap<>();
    private volatile boolean leaving;

    /** A reaper may start only while the lease is held; it counts as running until released. */
    boolean acquire(String source) {
        lock.lock();
        try {
            if (!held.contains(source) || leaving) {
                return false;
            }
            running.add(source);
            return true;
        } finally {
            lock.unlock();
        }
    }

    Instant takePreviousTick(String source) {
        lock.lock();
        try {
            return previousTicks.remove(source);
        } finally {
            lock.unlock();
        }
    }

    boolean holds(String source) {
        lock.lock();
        try {
            return held.contains(source) && !leaving;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A reaper stopped after its last tick began at {@code lastTick} (null: it never ticked);
     * returns true when its lease is to be freed now (no longer held, or leaving).
     */
    boolean released(String source, Instant lastTick) {
        lock.lock();
        try {
            if (lastTick != null) {
                lastTicks.put(source, lastTick);
            }
            running.remove(source);
            return !held.contains(source) || leaving;
        } finally {
            lock.unlock();
        }
    }

    /** The last tick run here of a source whose reaper stopped (null: unknown); the lease carries it to the next owner. */
    Instant lastTick(String source) {
        lock.lock();
        try {
            return lastTicks.get(source);
        } finally {
            lock.unlock();
        }
    }

    Set<String> held() {
        lock.lock();
        try {
            return Set.copyOf(held);
        } finally {
            lock.unlock();
        }
    }

    /** From now on nothing is acquired or held: every reaper stops and hands its lease back. */
    void leave() {
        leaving = true;
    }

    boolean leaving() {
        return leaving;
    }

    /** Sources with a reaper here that has not stopped yet. */
    Set<String> running() {
        lock.lock();
        try {
            return Set.copyOf(running);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops holding {@code sources}: they are being handed back until freed.
     *
     * @return those without a running reaper, to be freed now
     */
    Set<String> giveUp(Collection<String> sources) {
        var freeNow = new HashSet<String>();
        lock.lock();
        try {
            for (String source : sources) {
                if (held.remove(source)) {
                    handingBack.add(source);
                    if (!running.contains(source)) {
                        freeNow.add(source);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        return freeNow;
    }

    /**
     * Aligns with the leases the database gives this instance: drops sources another instance has
     * taken (their reapers stop at once; nothing to free), and settles leases it holds there but
     * does not use: one whose hand-back failed is freed again, one from a previous run under the
     * same instance id is adopted.
     */
    Settled settle(Set<String> stillHeld) {
        lock.lock();
        try {
            var gone = new HashSet<>(held);
            gone.removeAll(stillHeld);
            held.removeAll(gone);
            var adopted = new HashSet<String>();
            var freeAgain = new HashSet<String>();
            for (String source : stillHeld) {
                if (held.contains(source) || running.contains(source)) {
                    continue;
                }
                if (handingBack.contains(source) || leaving) {
                    freeAgain.add(source);
                } else {
                    adopted.add(source);
                }
            }
            held.addAll(adopted);
            previousTicks.keySet().retainAll(held);
            // Freed meanwhile (by this instance or by expiry): nothing left to hand back.
            handingBack.removeIf(source -> !stillHeld.contains(source) && !held.contains(source));
            lastTicks.keySet().removeIf(source -> !stillHeld.contains(source) && !running.contains(source));
            return new Settled(gone, freeAgain, !gone.isEmpty() || !adopted.isEmpty());
        } finally {
            lock.unlock();
        }
    }

    /** Claims committed: held from now on, with the previous owners' last ticks. */
    void claimed(Set<String> sources, Map<String, Instant> ticks) {
        lock.lock();
        try {
            held.addAll(sources);
            previousTicks.putAll(ticks);
            handingBack.removeAll(sources);
            lastTicks.keySet().removeAll(sources);
        } finally {
            lock.unlock();
        }
    }

    /** Not claimed or chosen again while the hand-back waits for their ticks. */
    void handingBack(Set<String> sources) {
        lock.lock();
        try {
            handingBack.addAll(sources);
        } finally {
            lock.unlock();
        }
    }

    boolean handBackPending() {
        lock.lock();
        try {
            return !handingBack.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** The lease of {@code source} is free in the database. */
    void freed(String source) {
        lock.lock();
        try {
            handingBack.remove(source);
            lastTicks.remove(source);
        } finally {
            lock.unlock();
        }
    }
}
