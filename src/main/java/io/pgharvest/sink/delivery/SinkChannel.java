package io.pgharvest.sink.delivery;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.sink.SinkThreads;
import io.pgharvest.sink.spill.SpillCodec;
import io.pgharvest.sink.spill.SpillLog;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sink's queue and its writer: measurements wait in memory ({@link ChannelQueue}), move to the
 * {@link SpillLog} when memory holds more than the configured bound ({@link Spiller}), and are
 * handed to the sink in collection order by one writer thread ({@link SinkWriter}), in batches,
 * with capped back-off while the sink fails ({@link RetryPolicy}). Measurements a working sink
 * refuses go to {@link Rejections}; what the channel believes about its sink is
 * {@link SinkHealth}, its counts {@link SinkMeters}. This class wires the parts and owns the
 * lifecycle: {@link #start}, {@link #publish}, {@link #stop}.
 *
 * <p>Order invariant: the batch being delivered is older than everything on disk, and
 * everything on disk is older than everything in memory. The writer therefore reads the spill
 * log before memory, the spiller moves the OLDEST measurements of memory to the END of the log,
 * and at shutdown an undelivered batch taken from memory is written BEFORE the log
 * ({@link SpillLog#prepend}) and the rest of memory after it.
 *
 * <p>{@link #publish} never waits for I/O: it takes the queue's short lock, which no thread holds
 * while talking to the sink or the disk.
 *
 * <p>Durability: while the sink is not known to accept writes (not yet UP, failing, or a write
 * hanging for longer than {@link Spiller#SPILL_INTERVAL}), the spiller moves everything in memory to the
 * spill log every {@link Spiller#SPILL_INTERVAL} with one fsync (group commit), and a batch taken from
 * memory whose write fails is written before the log at once. So a {@code kill -9} during an
 * outage loses at most the measurements of the last interval. While the sink is healthy, memory
 * only spills above its bound (a crash then loses what waited for the next batch, at most
 * {@code batch-delay} plus one write); the one batch of a write that hangs is kept in memory
 * until the write ends.
 *
 * <p>A sink is UP only after a write or a probe succeeded; while it fails it is probed every
 * {@link RetryPolicy#PROBE_INTERVAL}, so delivery resumes within about a second of the sink coming back.
 *
 * <p>Threads: publishers (reapers), the writer, the spiller, and the thread calling {@link #stop}.
 * {@link #start} and {@link #stop} are called once each by the dispatcher; the thread fields are
 * written under the queue's lock in start and read by stop after the queue left RUNNING.
 */
public final class SinkChannel {

    private static final Logger log = LoggerFactory.getLogger(SinkChannel.class);

    private final Sink sink;
    private final String type;
    private final DeliverySettings settings;
    private final SinkMeters meters;
    private final ChannelQueue queue;
    private final SpillLog spill;
    private final SinkHealth health;
    private final Rejections rejections;
    private final StopSignal stopSignal = new StopSignal();
    private final Spiller spiller;
    private final SinkWriter writer;
    private final String destination;
    private Thread writerThread;
    private Thread spillerThread;

    /**
     * @param spillDir this sink's own directory; the spill log left there by an earlier run is
     *     delivered first
     */
    public SinkChannel(Sink sink, String type, String destination, DeliverySettings settings, Path spillDir,
            MeterRegistry registry, Clock clock) throws IOException {
        this.sink = sink;
        this.type = type;
        this.destination = destination;
        this.settings = settings;
        this.meters = new SinkMeters(sink.name(), registry);
        this.queue = new ChannelQueue(settings);
        this.spill = SpillLog.open(spillDir, settings.diskBound(), new SpillCodec(), meters::dropped,
                meters::quarantined);
        this.health = new SinkHealth(sink.name(), clock, spill::undelivered, queue::wakeSpiller);
        this.rejections = new Rejections(sink, spillDir, settings, meters, health);
        this.spiller = new Spiller(sink.name(), queue, spill, health, meters, stopSignal);
        var retry = new RetryPolicy(settings.retryBackoff(), sink, health, stopSignal);
        this.writer = new SinkWriter(sink, queue, spill, rejections, health, meters, retry, stopSignal, settings);
        meters.gauge("pgharvest.sink.queue.depth", queue, ChannelQueue::queued, "Measurements waiting in memory", null);
        meters.gauge("pgharvest.sink.spill.measurements", spill, SpillLog::undelivered,
                "Measurements waiting in the spill log", null);
        meters.gauge("pgharvest.sink.spill.bytes", spill, SpillLog::bytes, "Size of the spill log", "bytes");
        meters.gauge("pgharvest.sink.parked.measurements", rejections, Rejections::parked,
                "Measurements kept because their table conflicts with the sink", null);
        meters.gauge("pgharvest.sink.up", health, h -> h.up() ? 1 : 0, "1 when the last write succeeded", null);
    }

    public String name() {
        return sink.name();
    }

    /** Starts the writer and the spiller, on platform threads ({@link SinkThreads} says why). */
    public void start() {
        queue.start(sink.name(), () -> {
            writerThread = SinkThreads.of(sink.name(), "writer").start(writer);
            spillerThread = SinkThreads.of(sink.name(), "spill").start(spiller);
        });
    }

    /**
     * Queues measurements and returns without waiting for the sink. Only when memory holds more
     * than four times its bound (the spiller cannot keep up) does the caller wait for a local
     * disk append. After {@link #stop} measurements go straight to the spill log.
     */
    public void publish(List<Measurement> measurements) {
        if (measurements.isEmpty()) {
            return;
        }
        switch (queue.offer(measurements)) {
            case STOPPED -> spiller.appendAfterStop(measurements);
            // The spiller is not keeping up (a burst, or a slow disk): this caller moves the oldest
            // measurements to disk itself rather than let memory grow without bound.
            case OVERLOADED -> spiller.moveOldestToDisk();
            case QUEUED, ABOVE_BOUND -> { }
        }
    }

    /**
     * Stops the writer: a healthy sink gets the queued measurements until the flush timeout, the
     * rest (and any undelivered batch) is persisted to the spill log. Blocks until done.
     */
    public void stop() {
        ChannelQueue.State before = queue.beginStop(settings.flushTimeout());
        if (before == ChannelQueue.State.STOPPING || before == ChannelQueue.State.STOPPED) {
            return;
        }
        if (before == ChannelQueue.State.RUNNING) {
            stopSignal.signal();
            join(spillerThread, Duration.ofMinutes(5));
            if (!join(writerThread, settings.flushTimeout().plusSeconds(1))) {
                stopSignal.abandon();
                writerThread.interrupt();
                if (!join(writerThread, Duration.ofSeconds(5))) {
                    log.warn("Sink {}: writer still blocked in the sink after the flush timeout; its batch is "
                            + "persisted and may be delivered twice", sink.name());
                }
            }
        }
        spiller.persistRemainder();
        try {
            rejections.close();
        } catch (IOException e) {
            log.warn("Sink {}: closing the spill log failed", sink.name(), e);
        }
        try {
            sink.close();
        } catch (Exception e) {
            log.warn("Sink {}: closing failed", sink.name(), e);
        }
    }

    public SinkStatus status() {
        return new SinkStatus(sink.name(), type, destination, health.up(), health.lastError(), health.lastErrorAt(),
                queue.queued(),
                spill.undelivered(), spill.bytes(), meters.written(), meters.dropped(), meters.failures(),
                meters.quarantined(), meters.quarantinedBytes(), health.writerFailure(), meters.writerRestarts(), rejections.parked(),
                rejections.conflicts(), rejections.refusedMeasurements(), rejections.refusedBatches());
    }

    private static boolean join(Thread thread, Duration timeout) {
        if (thread == null) {
            return true;
        }
        try {
            return thread.join(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !thread.isAlive();
        }
    }
}
