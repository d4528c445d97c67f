package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Hands published measurements to the {@link RecentWindow} off the reapers' path: {@link #observe}
 * only offers the batch to a bounded queue (dropped and counted when full, never waited for); one
 * virtual thread records them and, once a minute, sweeps what left the span.
 */
final class WindowFeed implements MeasurementObserver, SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(WindowFeed.class);
    private static final Duration SWEEP_EVERY = Duration.ofMinutes(1);

    private final RecentWindow window;
    private final BlockingQueue<List<Measurement>> queue;
    private final AtomicLong droppedBatches = new AtomicLong();
    private volatile Thread writer;

    WindowFeed(RecentWindow window, int queuedBatches) {
        this.window = window;
        this.queue = new ArrayBlockingQueue<>(queuedBatches);
    }

    @Override
    public void observe(List<Measurement> measurements) {
        if (!queue.offer(measurements)) {
            droppedBatches.incrementAndGet();
        }
    }

    /**
     * Starts the writer; also after {@link #stop}: Spring stops the lifecycle beans of a context it
     * pauses (a cached test context, a context restart) and starts them again, and a feed whose
     * writer had ended would then drop every batch into a full queue while the window stays empty.
     */
    @Override
    public synchronized void start() {
        if (writer == null || !writer.isAlive()) {
            writer = Thread.ofVirtual().name("window-feed").start(this::recordUntilStopped);
        }
    }

    /** Ends the writer and waits for it (briefly), so a later start never runs two writers at once. */
    @Override
    public synchronized void stop() {
        Thread running = writer;
        writer = null;
        if (running != null) {
            running.interrupt();
            try {
                running.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        Thread running = writer;
        return running != null && running.isAlive();
    }

    private void recordUntilStopped() {
        long nextSweep = System.nanoTime() + SWEEP_EVERY.toNanos();
        while (!Thread.currentThread().isInterrupted()) {
            try {
                List<Measurement> batch = queue.poll(SWEEP_EVERY.toMillis(), TimeUnit.MILLISECONDS);
                if (batch != null) {
                    window.record(batch);
                }
                if (System.nanoTime() - nextSweep >= 0) {
                    window.sweep();
                    nextSweep = System.nanoTime() + SWEEP_EVERY.toNanos();
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("The recent window could not record a batch; the next one is tried", e);
            }
        }
    }

    long droppedBatches() {
        return droppedBatches.get();
    }

    int queued() {
        return queue.size();
    }
}
