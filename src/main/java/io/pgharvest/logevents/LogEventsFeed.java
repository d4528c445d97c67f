package io.pgharvest.logevents;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementObserver;
import io.pgharvest.support.QueuedWorker;
import java.util.List;
import org.springframework.context.SmartLifecycle;

/**
 * Hands the log_* measurements to the {@link LogEventBook} off the reapers' path: {@link #observe}
 * keeps only the batches that hold one and offers them to a {@link QueuedWorker} (dropped and
 * counted when full, never waited for), whose thread records them.
 */
final class LogEventsFeed implements MeasurementObserver, SmartLifecycle {

    static final int QUEUED_BATCHES = 256;

    private final QueuedWorker<List<Measurement>> worker;

    LogEventsFeed(LogEventBook book) {
        this.worker = new QueuedWorker<>("log-events-feed", QUEUED_BATCHES, batch -> batch.forEach(book::record));
    }

    @Override
    public void observe(List<Measurement> measurements) {
        for (Measurement measurement : measurements) {
            if (LogEventBook.isLogMetric(measurement.metric())) {
                worker.offer(measurements);
                return;
            }
        }
    }

    long droppedBatches() {
        return worker.dropped();
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
}
