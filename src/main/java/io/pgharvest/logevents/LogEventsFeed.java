package io.pgharvest.logevents;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Hands the log_* measurements to the {@link LogEventBook} off the reapers' path: {@link #observe}
 * keeps only the batches that hold one, offers them to a bounded queue (dropped and counted when
 * full, never waited for), and one virtual thread records them.
 */
final class LogEventsFeed implements MeasurementObserver, SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(LogEventsFeed.class);
    static final int QUEUED_BATCHES = 256;

    private final LogEventBook book;
    private final BlockingQueue<List<Measurement>> queue = new ArrayBlockingQueue<>(QUEUED_BATCHES);
    private final AtomicLong droppedBatches = new AtomicLong();
    private volatile Thread writer;

    LogEventsFeed(LogEventBook book) {
        this.book = book;
    }

    @Override
    public void observe(List<Measurement> measurements) {
        for (Measurement measurement : measurements) {
            if (LogEventBook.isLogMetric(measurement.metric())) {
                if (!queue.offer(measurements)) {
                    droppedBatches.incrementAndGet();
                }
                return;
            }
        }
    }

    long droppedBatches() {
        return droppedBatches.get();
    }

    @Override
    public synchronized void start() {
        if (writer == null || !writer.isAlive()) {
            writer = Thread.ofVirtual().name("log-events-feed").start(this::recordUntilStopped);
        }
    }

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
        while (!Thread.currentThread().isInterrupted()) {
            try {
                List<Measurement> batch = queue.take();
                batch.forEach(book::record);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                log.warn("log events: a batch could not be recorded: {}", e.toString());
            }
        }
    }
}
