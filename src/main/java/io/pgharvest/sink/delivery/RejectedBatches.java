package io.pgharvest.sink.delivery;

import io.pgharvest.model.BoundedText;
import io.pgharvest.sink.SinkRejectedException;
import io.pgharvest.sink.spill.SpillCodec;
import io.pgharvest.sink.spill.SpillLog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batches a sink refused for good ({@link SinkRejectedException#quarantined()}, e.g. an HTTP 400 of
 * a remote-write receiver): appended to {@code <spill dir>/rejected/} in the spill format, never
 * delivered, so an operator can see what was refused (and replay it by hand); bounded by the
 * sink's disk bound like the spill log (the oldest dropped first, counted as dropped). Counted in
 * measurements and batches, for health and meters.
 */
final class RejectedBatches implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RejectedBatches.class);

    private final String sinkName;
    private final SpillLog kept;
    private final LongConsumer onDrop;
    private final AtomicLong measurements = new AtomicLong();
    private final AtomicLong batches = new AtomicLong();

    private RejectedBatches(String sinkName, SpillLog log, LongConsumer onDrop) {
        this.sinkName = sinkName;
        this.kept = log;
        this.onDrop = onDrop;
    }

    static RejectedBatches open(String sinkName, Path dir, long diskBound, SinkMeters meters) throws IOException {
        var rejected = new RejectedBatches(sinkName,
                SpillLog.open(dir, diskBound, new SpillCodec(), meters::dropped), meters::dropped);
        meters.counter("pgharvest.sink.rejected", rejected.measurements,
                "Measurements the sink refused for good, set aside in rejected/");
        meters.counter("pgharvest.sink.rejected.batches", rejected.batches,
                "Batches the sink refused for good, set aside in rejected/");
        return rejected;
    }

    /** Sets the refused measurements aside and counts them; delivery goes on with the next batch. */
    void keep(SinkRejectedException e) {
        int count = e.rejected().size();
        measurements.addAndGet(count);
        batches.incrementAndGet();
        log.error("Sink {}: {} measurements refused for good and set aside in rejected/: {}", sinkName, count,
                BoundedText.messageOf(e));
        try {
            kept.append(e.rejected());
        } catch (IOException | RuntimeException failure) {
            onDrop.accept(count);
            log.error("Sink {}: refused measurements could not be set aside and are dropped", sinkName, failure);
        }
    }

    long measurements() {
        return measurements.get();
    }

    long batches() {
        return batches.get();
    }

    @Override
    public void close() throws IOException {
        kept.close();
    }
}
