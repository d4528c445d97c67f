package io.pgharvest.sink.delivery;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The counts one sink's channel keeps (delivered, dropped, failed, quarantined, writer restarts,
 * write time) and the meters that publish them, tagged with the sink's name. Thread-safe: every
 * count is atomic, so the writer, the spiller, publishers and health may touch them at once.
 */
final class SinkMeters {

    private final MeterRegistry registry;
    private final Tags tags;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong quarantined = new AtomicLong();
    private final AtomicLong quarantinedBytes = new AtomicLong();
    private final AtomicLong writerRestarts = new AtomicLong();
    private final Timer writeTimer;

    SinkMeters(String sink, MeterRegistry registry) {
        this.registry = registry;
        this.tags = Tags.of("sink", sink);
        counter("pgharvest.sink.written", written, "Measurements delivered");
        counter("pgharvest.sink.dropped", dropped,
                "Measurements given up: spill bound exceeded, rejected by the sink, spill failure");
        counter("pgharvest.sink.failures", failures, "Failed write attempts");
        counter("pgharvest.sink.spill.quarantined", quarantined,
                "Spill records that could not be read, set aside in quarantine/ (also counted as dropped)");
        counter("pgharvest.sink.spill.quarantined.bytes", quarantinedBytes,
                "Bytes of the spill log set aside in quarantine/");
        counter("pgharvest.sink.writer.restarts", writerRestarts,
                "Writer loops ended by an unexpected error and restarted");
        this.writeTimer = Timer.builder("pgharvest.sink.write.duration")
                .description("Time of successful batch writes").tags(tags).register(registry);
    }

    /** Registers a gauge of this sink; {@code unit} may be null. */
    <T> void gauge(String name, T state, ToDoubleFunction<T> value, String description, String unit) {
        Gauge.builder(name, state, value).description(description).baseUnit(unit).tags(tags).register(registry);
    }

    void counter(String name, AtomicLong count, String description) {
        FunctionCounter.builder(name, count, AtomicLong::get).description(description).tags(tags).register(registry);
    }

    void written(long count) {
        written.addAndGet(count);
    }

    /** A successful write of {@code count} measurements that began at {@code startedNanos}. */
    void written(long count, long startedNanos) {
        writeTimer.record(System.nanoTime() - startedNanos, TimeUnit.NANOSECONDS);
        written.addAndGet(count);
    }

    void dropped(long count) {
        dropped.addAndGet(count);
    }

    /** Spill records lost to damage (also dropped measurements) and the bytes set aside with them. */
    void quarantined(long records, long bytes) {
        quarantined.addAndGet(records);
        dropped.addAndGet(records);
        quarantinedBytes.addAndGet(bytes);
    }

    void failure() {
        failures.incrementAndGet();
    }

    void writerRestarted() {
        writerRestarts.incrementAndGet();
    }

    long written() {
        return written.get();
    }

    long dropped() {
        return dropped.get();
    }

    long failures() {
        return failures.get();
    }

    long quarantined() {
        return quarantined.get();
    }

    long quarantinedBytes() {
        return quarantinedBytes.get();
    }

    long writerRestarts() {
        return writerRestarts.get();
    }
}
