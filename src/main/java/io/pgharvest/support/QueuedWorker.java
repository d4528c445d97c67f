package io.pgharvest.support;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded queue and the one virtual thread that works it off, for hand-offs from a thread that
 * must never wait (the reapers publishing to the recent window, alert evaluation, the log events):
 * {@link #offer} drops and counts what does not fit. The worker takes the items one by one and, when
 * given a tick, runs it about every period between items; a failing item or tick is logged and the
 * next one tried.
 *
 * <p>Restartable: {@link #start} after {@link #stop} runs a new thread on the same queue, because
 * Spring stops the lifecycle beans of a context it pauses (a cached test context) and starts them
 * again, and a worker whose thread had ended would drop every item into a full queue.
 */
public final class QueuedWorker<T> {

    private static final Logger log = LoggerFactory.getLogger(QueuedWorker.class);
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private final String name;
    private final BlockingQueue<T> queue;
    private final Consumer<T> work;
    private final Duration tickEvery;
    private final Runnable tick;
    private final AtomicLong dropped = new AtomicLong();
    private volatile Thread worker;

    /** A worker without a tick: it waits for items only. */
    public QueuedWorker(String name, int capacity, Consumer<T> work) {
        this(name, capacity, work, null, null);
    }

    /** A worker that also runs {@code tick} about every {@code tickEvery} (null for none). */
    public QueuedWorker(String name, int capacity, Consumer<T> work, Duration tickEvery, Runnable tick) {
        if ((tickEvery == null) != (tick == null) || tickEvery != null && !tickEvery.isPositive()) {
            throw new IllegalArgumentException("a tick needs a positive period and a period needs a tick");
        }
        this.name = Objects.requireNonNull(name);
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.work = Objects.requireNonNull(work);
        this.tickEvery = tickEvery;
        this.tick = tick;
    }

    /**
     * A worker with no items, only its tick: a periodic job that gets the same restartable thread,
     * the same failure logging and the same stop as the queued ones.
     */
    public static QueuedWorker<Void> ticking(String name, Duration every, Runnable tick) {
        return new QueuedWorker<>(name, 1, nothing -> { }, Objects.requireNonNull(every), Objects.requireNonNull(tick));
    }

    /** Queues the item, or drops and counts it when the queue is full; never waits. */
    public void offer(T item) {
        if (!queue.offer(item)) {
            dropped.incrementAndGet();
        }
    }

    /** Starts the thread unless it runs; also after {@link #stop} (see the class comment). */
    public synchronized void start() {
        if (worker == null || !worker.isAlive()) {
            worker = Thread.ofVirtual().name(name).start(this::workUntilStopped);
        }
    }

    /** Ends the thread and waits for it (briefly), so a later start never runs two at once. */
    public synchronized void stop() {
        Thread running = worker;
        worker = null;
        if (running != null) {
            running.interrupt();
            try {
                running.join(STOP_WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public boolean isRunning() {
        Thread running = worker;
        return running != null && running.isAlive();
    }

    /** Items dropped because the queue was full, since this worker was made. */
    public long dropped() {
        return dropped.get();
    }

    public int queued() {
        return queue.size();
    }

    private void workUntilStopped() {
        long nextTick = tickEvery == null ? 0 : System.nanoTime() + tickEvery.toNanos();
        while (!Thread.currentThread().isInterrupted()) {
            try {
                T item = tickEvery == null ? queue.take()
                        : queue.poll(Math.max(1, nextTick - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (item != null) {
                    work.accept(item);
                }
                if (tickEvery != null && System.nanoTime() - nextTick >= 0) {
                    nextTick = System.nanoTime() + tickEvery.toNanos();
                    tick.run();
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("{}: an item or tick failed; the next one is tried: {}", name, e.toString(), e);
            }
        }
    }
}
