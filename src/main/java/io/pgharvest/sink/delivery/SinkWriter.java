package io.pgharvest.sink.delivery;

import io.pgharvest.model.Measurement;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkRejectedException;
import io.pgharvest.sink.spill.SpillLog;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that hands a sink its measurements, in collection order: the spill log first,
 * then memory, in batches; after a failure it waits as {@link RetryPolicy} says.
 *
 * <p>{@link #run} is the writer's supervisor: an unexpected error ends one loop, is counted and
 * shown ({@link io.pgharvest.sink.SinkStatus#writerFailure()}), and a new loop starts after a capped back-off; a batch
 * taken from memory by the loop that failed is delivered first by the next one.
 *
 * <p>Order: a batch taken from memory is "in flight" in the {@link ChannelQueue} until delivered;
 * when its write fails it is written BEFORE the log ({@link SpillLog#prepend}), so that a crash
 * does not lose it and it still goes first. A batch read from the log stays there until
 * acknowledged. Everything here runs on the writer thread; state shared with other threads lives
 * in the queue (its lock), {@link SinkHealth} (volatile) and {@link SinkMeters} (atomic).
 */
final class SinkWriter implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(SinkWriter.class);

    /** A batch to write, with where it came from: {@code fromSpill} is null for a batch from memory. */
    private record Pending(List<Measurement> measurements, SpillLog.Batch fromSpill) {
    }

    private final Sink sink;
    private final ChannelQueue queue;
    private final SpillLog spill;
    private final Rejections rejections;
    private final SinkHealth health;
    private final SinkMeters meters;
    private final RetryPolicy retry;
    private final StopSignal stop;
    private final DeliverySettings settings;

    SinkWriter(Sink sink, ChannelQueue queue, SpillLog spill, Rejections rejections, SinkHealth health,
            SinkMeters meters, RetryPolicy retry, StopSignal stop, DeliverySettings settings) {
        this.sink = sink;
        this.queue = queue;
        this.spill = spill;
        this.rejections = rejections;
        this.health = health;
        this.meters = meters;
        this.retry = retry;
        this.stop = stop;
        this.settings = settings;
    }

    /** The supervisor: a loop that fails unexpectedly is reported and started again. */
    @Override
    public void run() {
        health.probeAtStart(sink);
        int restarts = 0;
        while (true) {
            try {
                writeUntilStopped();
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                meters.writerRestarted();
                Duration delay = retry.delayAfter(++restarts);
                health.writerFailed(SinkHealth.describe(e));
                log.error("Sink {}: writer failed, restarting it in {}; measurements are kept", sink.name(), delay, e);
                spill.release();
                try {
                    if (stop.await(delay) || stop.abandoned()) {
                        return;
                    }
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** One writer loop; a batch taken from memory by a loop that failed is delivered first. */
    private void writeUntilStopped() throws InterruptedException {
        List<Measurement> carried = queue.inFlight();
        Pending batch = carried == null ? nextBatch() : new Pending(carried, null);
        while (batch != null) {
            if (!deliver(batch)) {
                return;
            }
            rejections.retryIfDue();
            batch = nextBatch();
        }
    }

    /** The next batch in collection order, or null when stopping (or told to abandon). */
    private Pending nextBatch() throws InterruptedException {
        while (!stop.abandoned()) {
            if (spill.undelivered() > 0) {
                if (queue.stopping() && !queue.flushing(health.accepting())) {
                    return null; // left for the next run; memory goes after it
                }
                SpillLog.Batch fromSpill = readSpill();
                if (fromSpill != null) {
                    return new Pending(fromSpill.measurements(), fromSpill);
                }
                continue;
            }
            List<Measurement> fromMemory = queue.takeBatch(spill::undelivered);
            if (fromMemory == null) {
                return null;
            }
            if (!fromMemory.isEmpty()) {
                return new Pending(fromMemory, null);
            }
        }
        return null;
    }

    private SpillLog.Batch readSpill() throws InterruptedException {
        try {
            return spill.read(settings.batchSize());
        } catch (IOException e) {
            health.recordError("reading the spill log failed: " + e.getMessage());
            log.error("Sink {}: reading the spill log failed; its oldest segment is skipped", sink.name(), e);
            try {
                meters.dropped(spill.discardHead());
            } catch (IOException again) {
                log.error("Sink {}: cannot discard the unreadable spill segment; retrying later", sink.name(), again);
                stop.await(settings.retryMax());
            }
            return null;
        }
    }

    /**
     * Writes one batch. When the write fails, a batch read from the spill log stays there, and a
     * batch taken from memory is written before the log (so a crash does not lose it); then the
     * writer waits for the sink (back-off, cut short by a successful probe).
     *
     * @return false when stopping while the sink still fails
     */
    private boolean deliver(Pending batch) throws InterruptedException {
        while (true) {
            long started = System.nanoTime();
            try {
                health.writeStarted(started);
                try {
                    sink.write(batch.measurements());
                } finally {
                    health.writeEnded();
                }
                delivered(batch, batch.measurements().size(), started);
                return true;
            } catch (SinkRejectedException e) {
                rejections.rejected(e);
                delivered(batch, batch.measurements().size() - e.rejected().size(), started);
                return true;
            } catch (Exception e) {
                meters.failure();
                health.writeFailed(e);
                boolean onDisk = batch.fromSpill() != null ? releaseSpillBatch() : moveInFlightToDisk(batch);
                boolean again = retry.awaitRetry(queue::stopping, e);
                if (onDisk || !again) {
                    return again;
                }
                // Could not be put on disk: retried from memory (and persisted at shutdown).
            }
        }
    }

    private boolean releaseSpillBatch() {
        spill.release(); // still on disk, read again
        return true;
    }

    private boolean moveInFlightToDisk(Pending batch) {
        try {
            spill.prepend(batch.measurements());
        } catch (IOException | RuntimeException e) {
            log.error("Sink {}: a failed batch of {} measurements could not be written to the spill log; it is "
                    + "retried from memory", sink.name(), batch.measurements().size(), e);
            return false;
        }
        queue.inFlightDone();
        return true;
    }

    private void delivered(Pending batch, int count, long started) {
        meters.written(count, started);
        if (batch.fromSpill() != null) {
            try {
                spill.ack(batch.fromSpill());
            } catch (IOException e) {
                health.recordError("recording delivery in the spill log failed: " + e.getMessage());
                log.error("Sink {}: delivered batch could not be marked in the spill log; it may be delivered "
                        + "again after a restart", sink.name(), e);
            }
        } else {
            queue.inFlightDone();
        }
        health.writerRecovered();
        health.markUp();
    }
}
