package io.pgharvest.operations.selfmetrics;

import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import io.pgharvest.support.QueuedWorker;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.context.SmartLifecycle;

/**
 * Publishes pgharvest's own state ({@link SelfMetrics}) every interval through the same publisher
 * the reapers use, so the sinks store it and alert evaluation sees it as rows, like any metric's:
 * the built-in rules on a sink that drops or spills, or a reaper that stalls, are rules on rows.
 * What the meters of {@code /actuator/prometheus} show, without a Prometheus to read them.
 *
 * <p>Runs on a ticking {@link QueuedWorker}: one virtual thread, a failed round logged and the next
 * one run, started again after {@link #stop} (Spring pauses cached test contexts).
 */
final class SelfReporter implements SmartLifecycle {

    private final SelfSource source;
    private final Supplier<List<SinkStatus>> sinks;
    private final Supplier<List<SourceRuntimeStatus>> reapers;
    private final MeasurementPublisher publisher;
    private final Clock clock;
    private final QueuedWorker<Void> worker;

    SelfReporter(SelfSource source, Supplier<List<SinkStatus>> sinks, Supplier<List<SourceRuntimeStatus>> reapers,
            MeasurementPublisher publisher, Clock clock, Duration interval) {
        this.source = source;
        this.sinks = sinks;
        this.reapers = reapers;
        this.publisher = publisher;
        this.clock = clock;
        this.worker = QueuedWorker.ticking("self-metrics", interval, this::report);
    }

    /** Publishes the state of this moment (also what each round does). */
    void report() {
        publisher.publish(SelfMeasurements.of(source.name(), clock.instant(), sinks.get(), reapers.get()));
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

    /** After the sinks start, before they stop: nothing is published to a closed sink. */
    @Override
    public int getPhase() {
        return SinkDispatcher.PHASE + 1;
    }
}
