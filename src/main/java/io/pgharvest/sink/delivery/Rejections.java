package io.pgharvest.sink.delivery;

import io.pgharvest.model.BoundedText;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkRejectedException;
import io.pgharvest.sink.spill.SpillCodec;
import io.pgharvest.sink.spill.SpillLog;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens to measurements a working sink refuses ({@link SinkRejectedException}): those whose
 * destination conflicts with the sink (a table of another shape) are parked in a spill log of
 * their own under {@code parked/}, reported by destination, and retried every retry-max while the
 * sink is UP; once their table is fixed they are delivered (late, out of order with newer ones)
 * and the conflict disappears from health. Those that can never be written are dropped and
 * counted. Batches a sink refuses for good (a remote-write receiver's HTTP 4xx) are set aside in
 * {@code rejected/} ({@link RejectedBatches}) and counted.
 *
 * <p>Threads: {@link #rejected} and {@link #retryIfDue} run on the writer thread only (the retry
 * timer is its own); {@link #conflicts} and {@link #parked} are read by health at any time.
 */
final class Rejections implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Rejections.class);

    private final Sink sink;
    private final SpillLog parked;
    /** Batches refused for good (SinkRejectedException#quarantined), kept for inspection. */
    private final RejectedBatches refused;
    private final Map<String, String> conflicts = new ConcurrentHashMap<>();
    private final SinkMeters meters;
    private final SinkHealth health;
    private final Duration retryEvery;
    private final int batchSize;
    private long nextRetry;

    /**
     * @param spillDir the sink's spill directory: parked measurements go to {@code parked/},
     *     batches refused for good to {@code rejected/}
     */
    Rejections(Sink sink, Path spillDir, DeliverySettings settings, SinkMeters meters, SinkHealth health)
            throws IOException {
        this.sink = sink;
        this.parked = SpillLog.open(spillDir.resolve("parked"), settings.diskBound(), new SpillCodec(),
                meters::dropped, meters::quarantined);
        this.refused = RejectedBatches.open(sink.name(), spillDir.resolve("rejected"), settings.diskBound(), meters);
        this.meters = meters;
        this.health = health;
        this.retryEvery = settings.retryMax();
        this.batchSize = settings.batchSize();
    }

    /**
     * The measurements {@code e} refused: set aside in {@code rejected/} when the sink refused the
     * batch for good, parked when their destination conflicts, else dropped.
     */
    void rejected(SinkRejectedException e) {
        health.recordError(BoundedText.messageOf(e));
        if (e.quarantined()) {
            refused.keep(e);
        } else if (e.parked()) {
            park(e);
        } else {
            meters.dropped(e.rejected().size());
            log.error("Sink {}: {} measurements can never be written and are dropped: {}",
                    sink.name(), e.rejected().size(), BoundedText.messageOf(e), e.getCause());
        }
    }

    /** Keeps measurements whose table conflicts with the sink on disk, and says which tables. */
    private void park(SinkRejectedException e) {
        boolean newConflict = !conflicts.keySet().containsAll(e.conflicts().keySet());
        conflicts.putAll(e.conflicts());
        if (newConflict) {
            log.error("Sink {}: {}; the other metrics keep flowing, retried every {}", sink.name(), BoundedText.messageOf(e),
                    retryEvery);
        }
        try {
            parked.append(e.rejected());
        } catch (IOException | RuntimeException failure) {
            meters.dropped(e.rejected().size());
            log.error("Sink {}: {} measurements of conflicting tables could not be kept and are dropped",
                    sink.name(), e.rejected().size(), failure);
        }
        nextRetry = System.nanoTime() + retryEvery.toNanos();
    }

    /** Every retry-max, while the sink works, tries the oldest parked measurements again. */
    void retryIfDue() {
        if (parked.undelivered() == 0 || !health.up() || System.nanoTime() - nextRetry < 0) {
            return;
        }
        nextRetry = System.nanoTime() + retryEvery.toNanos();
        SpillLog.Batch batch;
        try {
            batch = parked.read(batchSize);
        } catch (IOException e) {
            log.error("Sink {}: reading parked measurements failed", sink.name(), e);
            return;
        }
        if (batch == null) {
            return;
        }
        try {
            sink.write(batch.measurements());
            resolved(batch.measurements());
            meters.written(batch.measurements().size());
        } catch (SinkRejectedException e) {
            meters.written(batch.measurements().size() - e.rejected().size());
            resolved(batch.measurements().stream().filter(m -> !e.conflicts().containsKey(m.metric())).toList());
            park(e); // appended again behind the rest; the old copies are acknowledged below
        } catch (Exception e) {
            parked.release();
            return;
        }
        try {
            parked.ack(batch);
        } catch (IOException e) {
            log.error("Sink {}: parked measurements delivered but not marked; they may be delivered again",
                    sink.name(), e);
        }
    }

    private void resolved(List<Measurement> delivered) {
        for (Measurement m : delivered) {
            if (conflicts.remove(m.metric()) != null) {
                log.info("Sink {}: table {} accepts measurements again", sink.name(), m.metric());
            }
        }
    }

    /** Measurements parked on disk. */
    long parked() {
        return parked.undelivered();
    }

    Map<String, String> conflicts() {
        return Map.copyOf(conflicts);
    }

    /** Measurements refused for good and set aside since start. */
    long refusedMeasurements() {
        return refused.measurements();
    }

    /** Batches refused for good and set aside since start. */
    long refusedBatches() {
        return refused.batches();
    }

    @Override
    public void close() throws IOException {
        try {
            parked.close();
        } finally {
            refused.close();
        }
    }
}
