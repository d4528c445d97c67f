package io.pgharvest.sink.delivery;

import io.pgharvest.model.Measurement;
import io.pgharvest.sink.spill.SpillLog;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves one sink's measurements from memory to the end of its {@link SpillLog}: above the memory
 * bound down to half of it, and while the sink does not accept writes everything, every
 * {@link #SPILL_INTERVAL} (each move is one append and one fsync: group commit). At stop
 * it persists what is left, and after stop it takes late measurements straight to disk.
 *
 * <p>Threads: {@link #run} is the spiller thread; {@link #moveOldestToDisk} is also called by an
 * overloaded publisher, {@link #persistRemainder} by the stopping thread, {@link #appendAfterStop}
 * by late publishers. Lock order: {@code appendOrder}, then the queue's lock. {@code appendOrder}
 * makes chunks reach the disk in the order they left memory when the spiller and a publisher both
 * move some; it is held during the disk append, the queue's lock is not (except at stop).
 */
final class Spiller implements Runnable {

    /** Longest a measurement stays only in memory while the sink is failing: the group commit period. */
    static final Duration SPILL_INTERVAL = Duration.ofMillis(500);
    private static final Logger log = LoggerFactory.getLogger(Spiller.class);

    private final String sink;
    private final ChannelQueue queue;
    private final SpillLog spill;
    private final SinkHealth health;
    private final SinkMeters meters;
    private final StopSignal stop;
    private final ReentrantLock appendOrder = new ReentrantLock();
    private final AtomicBoolean warnedAfterStop = new AtomicBoolean();

    Spiller(String sink, ChannelQueue queue, SpillLog spill, SinkHealth health, SinkMeters meters, StopSignal stop) {
        this.sink = sink;
        this.queue = queue;
        this.spill = spill;
        this.health = health;
        this.meters = meters;
        this.stop = stop;
    }

    @Override
    public void run() {
        ChannelQueue.Spill what;
        while ((what = queue.awaitSpillWork(health::acceptingWrites, SPILL_INTERVAL)) != null) {
            moveToDisk(what);
            if (what == ChannelQueue.Spill.ALL) {
                stop.sleep(SPILL_INTERVAL); // group commit: gather the next interval's arrivals
            }
        }
    }

    /** Moves the oldest measurements in memory to the end of the spill log, leaving half the memory bound. */
    void moveOldestToDisk() {
        moveToDisk(ChannelQueue.Spill.ABOVE_BOUND);
    }

    private void moveToDisk(ChannelQueue.Spill what) {
        appendOrder.lock();
        try {
            List<Measurement> chunk = queue.takeForDisk(what);
            if (chunk.isEmpty()) {
                return;
            }
            try {
                spill.append(chunk);
            } catch (IOException | RuntimeException e) {
                meters.dropped(chunk.size());
                health.recordError("spilling to disk failed: " + e.getMessage());
                log.error("Sink {}: spilling {} measurements to disk failed; they are dropped", sink, chunk.size(), e);
            } finally {
                queue.movedToDisk(chunk.size());
            }
        } finally {
            appendOrder.unlock();
        }
    }

    /**
     * Ends the queue and writes what it held: the undelivered in-flight batch before the log, the
     * rest of memory after it; then closes the log.
     */
    void persistRemainder() {
        appendOrder.lock(); // a chunk an overloaded publisher is moving is older than memory
        try {
            queue.drainAtStop(this::persist);
        } finally {
            appendOrder.unlock();
        }
    }

    private void persist(List<Measurement> inFlight, List<Measurement> rest) {
        try {
            spill.prepend(inFlight);
            spill.append(rest);
            if (spill.undelivered() > 0) {
                log.info("Sink {}: {} measurements kept in the spill log for the next start", sink,
                        spill.undelivered());
            }
        } catch (IOException e) {
            meters.dropped(rest.size());
            log.error("Sink {}: persisting {} queued measurements at shutdown failed", sink, rest.size(), e);
        }
        try {
            spill.close();
        } catch (IOException e) {
            log.warn("Sink {}: closing the spill log failed", sink, e);
        }
    }

    /** Measurements published after stop go straight to the log. */
    void appendAfterStop(List<Measurement> measurements) {
        if (!warnedAfterStop.getAndSet(true)) {
            log.warn("Sink {}: measurements published after shutdown go to the spill log", sink);
        }
        try {
            spill.append(measurements);
            spill.close();
        } catch (IOException e) {
            meters.dropped(measurements.size());
            log.error("Sink {}: spilling {} late measurements failed", sink, measurements.size(), e);
        }
    }
}
