package io.pgharvest.sink.dispatch;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.sink.delivery.SinkChannel;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.SmartLifecycle;

/**
 * The {@link MeasurementPublisher} reapers call: hands every measurement to each configured sink's
 * own queue ({@link SinkChannel}) and returns without waiting for any sink or disk.
 *
 * <p>Lifecycle: started before and stopped after any bean with a higher {@link #getPhase() phase};
 * the reaper service must use a higher phase (the default {@link SmartLifecycle#DEFAULT_PHASE}
 * is), so collection stops before the queues are flushed. Stopping flushes each queue to its
 * sink while the sink is healthy (up to its flush timeout) and persists the rest to the spill log.
 */
public final class SinkDispatcher implements MeasurementPublisher, SmartLifecycle, AutoCloseable {

    /** Lower than the default phase, so reapers stop first and the web server stops before us. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final List<SinkChannel> channels;
    private volatile boolean running;
    private volatile boolean started;

    private SinkDispatcher(List<SinkChannel> channels) {
        this.channels = List.copyOf(channels);
    }

    /**
     * Opens one queue per sink, each spilling under {@code spillRoot/<sink name>}; what earlier
     * runs spilled there is delivered first once started.
     */
    public static SinkDispatcher open(List<ConfiguredSink> sinks, Path spillRoot, MeterRegistry meters, Clock clock) {
        var channels = new ArrayList<SinkChannel>();
        try {
            for (ConfiguredSink configured : sinks) {
                Sink sink = configured.sink();
                channels.add(new SinkChannel(sink, configured.type(), configured.destination(), configured.delivery(),
                        spillRoot.resolve(sink.name()), meters, clock));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the spill log under " + spillRoot, e);
        }
        return new SinkDispatcher(channels);
    }

    @Override
    public void publish(List<Measurement> measurements) {
        for (SinkChannel channel : channels) {
            channel.publish(measurements);
        }
    }

    /** One status per sink, in configuration order. */
    public List<SinkStatus> statuses() {
        return channels.stream().map(SinkChannel::status).toList();
    }

    /** Starts every sink's writer; a second call does nothing (a stopped dispatcher stays stopped). */
    @Override
    public void start() {
        if (started) {
            return;
        }
        started = true;
        channels.forEach(SinkChannel::start);
        running = true;
    }

    /** Stops every sink in parallel, so one slow sink does not eat the others' flush time. */
    @Override
    public void stop() {
        running = false;
        List<Thread> stoppers = channels.stream()
                .map(channel -> Thread.ofVirtual().name("sink-" + channel.name() + "-stop").start(channel::stop))
                .toList();
        for (Thread stopper : stoppers) {
            try {
                stopper.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Stops what {@link #stop()} has not (e.g. the context failed before starting us): queued
     * measurements are persisted and the sinks closed. Idempotent.
     */
    @Override
    public void close() {
        stop();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * Not paused with the rest of a context (Spring pauses cached test contexts on a switch and
     * starts their lifecycle beans again later): a stop flushes and closes the sinks for good, so
     * a paused dispatcher would come back with no sink writing. The sinks close with the context.
     */
    @Override
    public boolean isPauseable() {
        return false;
    }
}
