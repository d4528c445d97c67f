package io.pgharvest.sink.delivery;

import io.pgharvest.model.Measurement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.List;

/**
 * The memory part of one sink's queue and the channel's lifecycle state (NEW, RUNNING, STOPPING,
 * STOPPED): what publishers add, what the writer takes in batches, and what the spiller moves to
 * disk; plus the batch taken by the writer and not yet delivered ("in flight"), which stop
 * persists before everything else.
 *
 * <p>Lock rules: one {@link ReentrantLock} guards every field. It is held only for memory
 * operations, never while talking to the sink, with one exception: {@link #drainAtStop} runs the
 * final disk writes under it, so that a publisher arriving later finds STOPPED and appends behind
 * them. Two conditions: {@code work} wakes the writer (new measurements, a move to disk ended,
 * stopping), {@code spillWanted} wakes the spiller (memory above its bound, the sink went down,
 * stopping). While measurements are on their way from memory to disk ({@code movingToDisk} > 0) the
 * writer waits, since they are older than what remains in memory.
 */
final class ChannelQueue {

    enum State { NEW, RUNNING, STOPPING, STOPPED }

    /** What {@link #offer} did with the measurements. */
    enum Offer {
        /** The channel has stopped: the caller must put them on disk itself. */
        STOPPED,
        /** Queued, memory within its bound. */
        QUEUED,
        /** Queued; memory is above its bound and the spiller was woken. */
        ABOVE_BOUND,
        /** Queued; memory is so far above its bound that the caller should move some to disk itself. */
        OVERLOADED
    }

    /** What the spiller should move to disk: memory above its bound, or everything. */
    enum Spill { ABOVE_BOUND, ALL }

    private final DeliverySettings settings;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Condition spillWanted = lock.newCondition();
    private final ArrayDeque<Measurement> memory = new ArrayDeque<>();
    private State state = State.NEW;
    private int movingToDisk;
    private List<Measurement> inFlight;
    private long batchDeadline;
    /** When the writer last took a batch from memory (System.nanoTime()). */
    private long lastBatchTaken;
    private long flushDeadline;
    /** memory.size() for gauges and status, read without the lock. */
    private volatile int queued;

    ChannelQueue(DeliverySettings settings) {
        this.settings = settings;
        this.lastBatchTaken = System.nanoTime() - settings.batchDelay().toNanos();
    }

    /** NEW to RUNNING; {@code startThreads} runs under the lock, so a concurrent stop sees the threads. */
    void start(String sink, Runnable startThreads) {
        lock.lock();
        try {
            if (state != State.NEW) {
                throw new IllegalStateException("sink " + sink + " was already started");
            }
            state = State.RUNNING;
            startThreads.run();
        } finally {
            lock.unlock();
        }
    }

    /** Adds measurements unless stopped; never waits for I/O. */
    Offer offer(List<Measurement> measurements) {
        lock.lock();
        try {
            if (state == State.STOPPED) {
                return Offer.STOPPED;
            }
            memory.addAll(measurements);
            queued = memory.size();
            work.signal();
            if (memory.size() <= settings.memoryQueue()) {
                return Offer.QUEUED;
            }
            spillWanted.signal();
            return memory.size() > settings.memoryHardLimit() ? Offer.OVERLOADED : Offer.ABOVE_BOUND;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Leaves NEW or RUNNING for STOPPING (the flush deadline starts now) and wakes the writer and
     * the spiller.
     *
     * @return the state before; STOPPING or STOPPED mean another stop is or was at work
     */
    State beginStop(Duration flushTimeout) {
        lock.lock();
        try {
            State before = state;
            if (before == State.NEW || before == State.RUNNING) {
                state = State.STOPPING;
                flushDeadline = System.nanoTime() + flushTimeout.toNanos();
                work.signalAll();
                spillWanted.signalAll();
            }
            return before;
        } finally {
            lock.unlock();
        }
    }

    boolean stopping() {
        lock.lock();
        try {
            return state != State.RUNNING;
        } finally {
            lock.unlock();
        }
    }

    /**
     * While stopping, a sink that takes writes is still given the spilled measurements until the
     * flush deadline: at start-up the spiller may have moved memory to disk before the first probe
     * answered, and a healthy sink should not leave them behind for the next run.
     */
    boolean flushing(boolean accepting) {
        lock.lock();
        try {
            return state == State.STOPPING && accepting && System.nanoTime() - flushDeadline < 0;
        } finally {
            lock.unlock();
        }
    }

    /** The batch a writer loop that failed had taken from memory, or null. */
    List<Measurement> inFlight() {
        lock.lock();
        try {
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    /** The in-flight batch was delivered or is safe on disk. */
    void inFlightDone() {
        lock.lock();
        try {
            inFlight = null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * One step of the writer's wait for the next batch from memory (it becomes in flight). Waits at
     * most once: for a move to disk to end, for measurements, or for a small batch's delay.
     *
     * @param spilled measurements in the spill log: they go before memory
     * @return the batch; an empty list when the caller should look at the spill log and ask again;
     *     null when stopping and memory is done with
     */
    List<Measurement> takeBatch(LongSupplier spilled) throws InterruptedException {
        lock.lock();
        try {
            if (movingToDisk > 0) {
                work.await();
                return List.of();
            }
            if (spilled.getAsLong() > 0) {
                return List.of();
            }
            if (memory.isEmpty()) {
                if (state != State.RUNNING) {
                    return null;
                }
                work.await();
                return List.of();
            }
            long now = System.nanoTime();
            if (state == State.RUNNING && memory.size() < settings.batchSize()) {
                if (batchDeadline == 0) {
                    // A partial batch follows the previous batch by at least the batch delay, and
                    // waits no longer than that: measurements that arrive after a quiet spell (the
                    // first tick after start, a small fleet's tick) are written at once, a steady
                    // stream is still grouped into one batch per delay.
                    long earliest = lastBatchTaken + settings.batchDelay().toNanos();
                    batchDeadline = earliest - now > 0 ? earliest : now;
                }
                if (batchDeadline - now > 0) {
                    work.awaitNanos(batchDeadline - now);
                    return List.of();
                }
            }
            if (state != State.RUNNING && now - flushDeadline > 0) {
                return null;
            }
            batchDeadline = 0;
            lastBatchTaken = now;
            inFlight = List.copyOf(pollOldest(Math.min(memory.size(), settings.batchSize())));
            return inFlight;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The spiller's wait: returns what to move once memory is above its bound, or not empty while
     * the sink does not accept writes; null when no longer running. Polls every {@code poll}: the
     * sink's state changes without telling the spiller (a write starts hanging).
     */
    Spill awaitSpillWork(BooleanSupplier acceptingWrites, Duration poll) {
        lock.lock();
        try {
            while (state == State.RUNNING) {
                if (memory.size() > settings.memoryQueue()) {
                    return Spill.ABOVE_BOUND;
                }
                if (!acceptingWrites.getAsBoolean() && !memory.isEmpty()) {
                    return Spill.ALL;
                }
                try {
                    spillWanted.awaitNanos(poll.toNanos());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the spiller (the sink went down). */
    void wakeSpiller() {
        lock.lock();
        try {
            spillWanted.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the oldest measurements on their way to disk (the writer waits until
     * {@link #movedToDisk}): all of memory, or what exceeds half its bound.
     *
     * @return empty when there is nothing to move or the channel has stopped
     */
    List<Measurement> takeForDisk(Spill what) {
        lock.lock();
        try {
            int count = what == Spill.ALL ? memory.size() : memory.size() - settings.memoryQueue() / 2;
            if (count <= 0 || state == State.STOPPED) {
                return List.of();
            }
            movingToDisk += count;
            return pollOldest(count);
        } finally {
            lock.unlock();
        }
    }

    /** {@code count} measurements from {@link #takeForDisk} are on disk (or were dropped). */
    void movedToDisk(int count) {
        lock.lock();
        try {
            movingToDisk -= count;
            work.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends the lifecycle: STOPPED, and {@code remainder} is given the in-flight batch (empty if
     * none) and the rest of memory, under the lock (see the class comment). Safe to call again:
     * memory is then empty.
     */
    void drainAtStop(BiConsumer<List<Measurement>, List<Measurement>> remainder) {
        lock.lock();
        try {
            state = State.STOPPED;
            List<Measurement> rest = new ArrayList<>(memory);
            memory.clear();
            queued = 0;
            List<Measurement> batch = inFlight == null ? List.of() : inFlight;
            remainder.accept(batch, rest);
            inFlight = null;
        } finally {
            lock.unlock();
        }
    }

    int queued() {
        return queued;
    }

    private List<Measurement> pollOldest(int count) {
        var batch = new ArrayList<Measurement>(count);
        for (int i = 0; i < count; i++) {
            batch.add(memory.pollFirst());
        }
        queued = memory.size();
        return batch;
    }
}
