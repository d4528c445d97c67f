package io.pgharvest.alert.evaluation;

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
 * Hands published measurements to the {@link AlertEvaluator} off the reapers' path: {@link #observe}
 * only offers the batch to a bounded queue (dropped and counted when full, never waited for); one
 * virtual thread evaluates them and, every round, re-sends what fires.
 */
final class AlertFeed implements MeasurementObserver, SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(AlertFeed.class);

    private final AlertEvaluator evaluator;
    private final Duration round;
    private final BlockingQueue<List<Measurement>> queue;
    private final AtomicLong droppedBatches = new AtomicLong();
    private final AtomicLong evaluatedBatches = new AtomicLong();
    private volatile Thread worker;

    AlertFeed(AlertEvaluator evaluator, Duration round, int queuedBatches) {
        this.evaluator = evaluator;
        this.round = round;
        this.queue = new ArrayBlockingQueue<>(queuedBatches);
    }

    @Override
    public void observe(List<Measurement> measurements) {
        if (!queue.offer(measurements)) {
            droppedBatches.incrementAndGet();
        }
    }

    /** Starts the worker, also after {@link #stop} (a paused test context is started again, see WindowFeed). */
    @Override
    public synchronized void start() {
        if (worker == null || !worker.isAlive()) {
            worker = Thread.ofVirtual().name("alert-evaluation").start(this::evaluateUntilStopped);
        }
    }

    @Override
    public synchronized void stop() {
        Thread running = worker;
        worker = null;
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
        Thread running = worker;
        return running != null && running.isAlive();
    }

    private void evaluateUntilStopped() {
        long nextRound = System.nanoTime() + round.toNanos();
        while (!Thread.currentThread().isInterrupted()) {
            try {
                long wait = Math.max(1, nextRound - System.nanoTime());
                List<Measurement> batch = queue.poll(wait, TimeUnit.NANOSECONDS);
                if (batch != null) {
                    evaluator.evaluate(batch);
                    evaluatedBatches.incrementAndGet();
                }
                if (System.nanoTime() - nextRound >= 0) {
                    evaluator.round();
                    nextRound = System.nanoTime() + round.toNanos();
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("Alert evaluation failed on a batch; the next one is tried: {}", e.toString(), e);
            }
        }
    }

    long droppedBatches() {
        return droppedBatches.get();
    }

    long evaluatedBatches() {
        return evaluatedBatches.get();
    }
}
