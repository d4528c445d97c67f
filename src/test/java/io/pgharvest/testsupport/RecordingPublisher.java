package io.pgharvest.testsupport;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/** A sink stand-in that keeps every published measurement and lets tests wait for some. */
public final class RecordingPublisher implements MeasurementPublisher {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final List<Measurement> measurements = new ArrayList<>();

    @Override
    public void publish(List<Measurement> batch) {
        lock.lock();
        try {
            measurements.addAll(batch);
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public List<Measurement> all() {
        lock.lock();
        try {
            return List.copyOf(measurements);
        } finally {
            lock.unlock();
        }
    }

    public List<Measurement> of(String source, String metric) {
        return all().stream().filter(m -> m.source().equals(source) && m.metric().equals(metric)).toList();
    }

    public void clear() {
        lock.lock();
        try {
            measurements.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until at least {@code count} recorded measurements match {@code filter}. */
    public List<Measurement> await(Predicate<Measurement> filter, int count, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (true) {
                List<Measurement> matching = measurements.stream().filter(filter).toList();
                if (matching.size() >= count) {
                    return matching;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("expected " + count + " matching measurements within " + timeout
                            + ", got " + matching.size());
                }
                arrived.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        } finally {
            lock.unlock();
        }
    }
}
