package io.pgharvest.alert.evaluation;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementObserver;
import io.pgharvest.support.QueuedWorker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.context.SmartLifecycle;

/**
 * Hands published measurements to the {@link AlertEvaluator} off the reapers' path through a
 * {@link QueuedWorker} (dropped and counted when full, never waited for): its thread evaluates them
 * and, every round, re-sends what fires.
 */
final class AlertFeed implements MeasurementObserver, SmartLifecycle {

    private final AlertEvaluator evaluator;
    private final QueuedWorker<List<Measurement>> worker;
    private final AtomicLong evaluatedBatches = new AtomicLong();

    AlertFeed(AlertEvaluator evaluator, Duration round, int queuedBatches) {
        this.evaluator = evaluator;
        this.worker = new QueuedWorker<>("alert-evaluation", queuedBatches, this::evaluate, round, evaluator::round);
    }

    private void evaluate(List<Measurement> batch) {
        evaluator.evaluate(batch);
        evaluatedBatches.incrementAndGet();
    }

    @Override
    public void observe(List<Measurement> measurements) {
        worker.offer(measurements);
    }

    @Override
    public void start() {
        worker.start();
    }

    @Override
    public void stop() {
        worker.stop();
    }

    @Override
    public boolean isRunning() {
        return worker.isRunning();
    }

    long droppedBatches() {
        return worker.dropped();
    }

    long evaluatedBatches() {
        return evaluatedBatches.get();
    }
}
