package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementObserver;
import io.pgharvest.support.QueuedWorker;
import java.time.Duration;
import java.util.List;
import org.springframework.context.SmartLifecycle;

/**
 * Hands published measurements to the {@link RecentWindow} off the reapers' path through a
 * {@link QueuedWorker} (dropped and counted when full, never waited for): its thread records them
 * and, once a minute, sweeps what left the span.
 */
final class WindowFeed implements MeasurementObserver, SmartLifecycle {

    private static final Duration SWEEP_EVERY = Duration.ofMinutes(1);

    private final QueuedWorker<List<Measurement>> worker;

    WindowFeed(RecentWindow window, int queuedBatches) {
        this.worker = new QueuedWorker<>("window-feed", queuedBatches, window::record, SWEEP_EVERY, window::sweep);
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

    int queued() {
        return worker.queued();
    }
}
