package io.pgharvest.reaper;

import io.pgharvest.reaper.schedule.TickTimer;
import io.pgharvest.reaper.schedule.WakeSignal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.TimeUnit;
import java.util.List;

/**
 * A clock the test moves by hand. Every time the reaper asks to sleep, the deadline is recorded,
 * so a test sees exactly when the reaper wanted to wake, and releases it by advancing time.
 */
final class ManualTickTimer implements TickTimer {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition requested = lock.newCondition();
    private final List<Instant> sleepRequests = new ArrayList<>();
    private Instant now;

    ManualTickTimer(Instant start) {
        this.now = start;
    }

    @Override
    public Instant now() {
        lock.lock();
        try {
            return now;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean sleepUntil(Instant deadline, WakeSignal signal) throws InterruptedException {
        lock.lock();
        try {
            sleepRequests.add(deadline);
            requested.signalAll();
        } finally {
            lock.unlock();
        }
        while (now().isBefore(deadline)) {
            if (signal.await(Duration.ofMillis(2))) {
                return true;
            }
        }
        return false;
    }

    /** Waits until the reaper has asked to sleep {@code count} times; returns the last deadline. */
    Instant awaitSleepRequests(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        lock.lock();
        try {
            while (sleepRequests.size() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("reaper asked to sleep " + sleepRequests.size()
                            + " times, expected " + count);
                }
                requested.awaitNanos(left);
            }
            return sleepRequests.get(count - 1);
        } finally {
            lock.unlock();
        }
    }

    int sleepCount() {
        lock.lock();
        try {
            return sleepRequests.size();
        } finally {
            lock.unlock();
        }
    }

    List<Instant> sleepRequests() {
        lock.lock();
        try {
            return List.copyOf(sleepRequests);
        } finally {
            lock.unlock();
        }
    }

    void advanceTo(Instant time) {
        lock.lock();
        try {
            if (time.isAfter(now)) {
                now = time;
            }
        } finally {
            lock.unlock();
        }
    }
}
