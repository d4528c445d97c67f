package io.pgharvest.support;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One monotonically increasing index plus one condition that every waiter parks on.
 *
 * <p>This is the whole mechanism behind blocking queries: a table has ONE notifier, however
 * many requests or reapers wait on it, and no thread, timer or watch object is created per
 * waiter. Waiters are expected to be virtual threads; parking them on a {@link Condition}
 * (not {@code synchronized}) keeps carrier threads free.
 */
public final class ChangeNotifier {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition advanced = lock.newCondition();
    private volatile long index;

    public ChangeNotifier(long initialIndex) {
        this.index = initialIndex;
    }

    public long index() {
        return index;
    }

    /** Raises the index to {@code newIndex} (never lowers it) and wakes every waiter. */
    public void advanceTo(long newIndex) {
        lock.lock();
        try {
            if (newIndex > index) {
                index = newIndex;
                advanced.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Blocks until the index is greater than {@code seenIndex} or {@code timeout} passes.
     *
     * @return the index at return, which equals {@code seenIndex} or less when it timed out
     */
    public long awaitAbove(long seenIndex, Duration timeout) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (index <= seenIndex && remaining > 0) {
                remaining = advanced.awaitNanos(remaining);
            }
            return index;
        } finally {
            lock.unlock();
        }
    }

    /** How many threads are parked in {@link #awaitAbove} right now (for meters and tests). */
    public int waiters() {
        lock.lock();
        try {
            return lock.getWaitQueueLength(advanced);
        } finally {
            lock.unlock();
        }
    }

    /** Convenience for callers that think in milliseconds of patience. */
    public long awaitAbove(long seenIndex, long timeout, TimeUnit unit) throws InterruptedException {
        return awaitAbove(seenIndex, Duration.ofNanos(unit.toNanos(timeout)));
    }
}
