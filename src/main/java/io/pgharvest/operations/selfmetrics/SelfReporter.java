package io.pgharvest.operations.selfmetrics;

import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Publishes pgharvest's own state ({@link SelfMetrics}) every interval through the same publisher
 * the reapers use, so the sinks store it and alert evaluation sees it as rows, like any metric's:
 * the built-in rules on a sink that drops or spills, or a reaper that stalls, are rules on rows.
 * What the meters of {@code /actuator/prometheus} show, without a Prometheus to read them.
 *
 * <p>One virtual thread; a failed round is logged and the next one runs. Starts again after
 * {@link #stop} (Spring pauses cached test contexts and starts their lifecycle beans again).
 */
final class SelfReporter implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(SelfReporter.class);

    private final SelfSource source;
    private final Supplier<List<SinkStatus>> sinks;
    private final Supplier<List<SourceRuntimeStatus>> reapers;
    private final MeasurementPublisher publisher;
    private final Clock clock;
    private final Duration interval;
    private volatile Thread worker;

    SelfReporter(SelfSource source, Supplier<List<SinkStatus>> sinks, Supplier<List<SourceRuntimeStatus>> reapers,
            MeasurementPublisher publisher, Clock clock, Duration interval) {
        this.source = source;
        this.sinks = sinks;
        this.reapers = reapers;
        this.publisher = publisher;
        this.clock = clock;
        this.interval = interval;
    }

    /** Publishes the state of this moment (also what each round does). */
    void report() {
        publisher.publish(SelfMeasurements.of(source.name(), clock.instant(), sinks.get(), reapers.get()));
    }

    @Override
    public synchronized void start() {
        if (worker == null || !worker.isAlive()) {
            worker = Thread.ofVirtual().name("self-metrics").start(this::reportUntilStopped);
        }
    }

    private void reportUntilStopped() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(interval);
                report();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("pgharvest's own state could not be published; the next round tries again: {}", e.toString(), e);
            }
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

    /** After the sinks start, before they stop: nothing is published to a closed sink. */
    @Override
    public int getPhase() {
        return SinkDispatcher.PHASE + 1;
    }
}
