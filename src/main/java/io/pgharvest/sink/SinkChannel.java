package io.pgharvest.sink;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.pgharvest.model.Measurement;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sink's queue and its writer: measurements wait in memory, move to the {@link SpillLog}
 * when memory holds more than the configured bound, and are handed to the sink in collection
 * order by one writer thread, in batches, with capped back-off while the sink fails.
 *
 * <p>Order invariant: the batch being delivered is older than everything on disk, and
 * everything on disk is older than everything in memory. The writer therefore reads the spill
 * log before memory, the spiller moves the OLDEST measurements of memory to the END of the log,
 * and at shutdown an undelivered batch taken from memory is written BEFORE the log
 * ({@link SpillLog#prepend}) and the rest of memory after it.
 *
 * <p>{@link #publish} never waits for I/O: it takes a short lock that no thread holds while
 * talking to the sink or the disk.
 *
 * <p>Durability: while the sink is not known to accept writes (not yet UP, failing, or a write
 * hanging for longer than {@link #SPILL_INTERVAL}), the spiller moves everything in memory to the
 * spill log every {@link #SPILL_INTERVAL} with one fsync (group commit), and a batch taken from
 * memory whose write fails is written before the log at once. So a {@code kill -9} during an
 * outage loses at most the measurements of the last interval. While the sink is healthy, memory
 * only spills above its bound (a crash then loses what waited for the next batch, at most
 * {@code batch-delay} plus one write); the one batch of a write that hangs is kept in memory
 * until the write ends.
 *
 * <p>The writer runs under a supervisor: an unexpected error ends one loop, is counted and
 * shown ({@link SinkStatus#writerFailure()}), and a new loop starts after a capped back-off.
 * A sink is UP only after a write or a probe succeeded; while it fails it is probed every
 * {@link #PROBE_INTERVAL}, so delivery resumes within about a second of the sink coming back.
 */
final class SinkChannel {

    private static final Logger log = LoggerFactory.getLogger(SinkChannel.class);
    /** Longest a measurement stays only in memory while the sink is failing. */
    static final Duration SPILL_INTERVAL = Duration.ofMillis(500);
    /** How often a failing sink is probed between write attempts. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

    private enum State { NEW, RUNNING, STOPPING, STOPPED }

    private record Pending(List<Measurement> measurements, SpillLog.Batch fromSpill) {
    }

    private final Sink sink;
    private final String type;
    private final DeliverySettings settings;
    private final SpillLog spill;
    /** Measurements whose destination conflicts with the sink (SinkRejectedException#parked). */
    private final SpillLog parked;
    private final Map<String, String> conflicts = new ConcurrentHashMap<>();
    /** Batches the sink refused for good (SinkRejectedException#quarantined), kept for inspection. */
    private final RejectedBatches refused;
    private long nextParkedRetry;
    private final Clock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final ReentrantLock appendOrder = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Condition spillWanted = lock.newCondition();
    private final ArrayDeque<Measurement> memory = new ArrayDeque<>();
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong quarantined = new AtomicLong();
    private final AtomicLong writerRestarts = new AtomicLong();
    private final Timer writeTimer;

    // Guarded by lock.
    private State state = State.NEW;
    private int movingToDisk;
    private List<Measurement> inFlight;
    private long batchDeadline;
    private long flushDeadline;
    private boolean warnedAfterStop;

    private volatile int queued;
    private volatile boolean abandon;
    /** True only after a write or probe succeeded, until the next failure. */
    private volatile boolean up;
    /**
     * The sink is believed to take writes: false at start until its probe answered (or it has no
     * probe), and from a failure to the next success. While false, memory goes to disk every
     * SPILL_INTERVAL.
     */
    private volatile boolean accepting;
    private volatile String writerFailure;
    /** System.nanoTime() when the running write began, 0 while no write runs. */
    private volatile long writeStartedNanos;
    private int consecutiveFailures;
    private volatile String lastError;
    private volatile Instant lastErrorAt;
    private volatile Instant downSince;
    private Thread writer;
    private Thread spiller;

    /**
     * @param spillDir this sink's own directory; the spill log left there by an earlier run is
     *     delivered first
     */
    SinkChannel(Sink sink, String type, DeliverySettings settings, Path spillDir,
            MeterRegistry meters, Clock clock) throws IOException {
        this.sink = sink;
        this.type = type;
        this.settings = settings;
        this.spill = SpillLog.open(spillDir, settings.diskBound(), new SpillCodec(), dropped::addAndGet,
                quarantined::addAndGet);
        this.parked = SpillLog.open(spillDir.resolve("parked"), settings.diskBound(), new SpillCodec(),
                dropped::addAndGet, quarantined::addAndGet);
        this.refused = RejectedBatches.open(sink.name(), spillDir.resolve("rejected"), settings.diskBound(),
                dropped::addAndGet, meters);
        this.clock = clock;
        Tags tags = Tags.of("sink", sink.name());
        Gauge.builder("pgharvest.sink.queue.depth", this, c -> c.queued)
                .description("Measurements waiting in memory").tags(tags).register(meters);
        Gauge.builder("pgharvest.sink.spill.measurements", spill, SpillLog::undelivered)
                .description("Measurements waiting in the spill log").tags(tags).register(meters);
        Gauge.builder("pgharvest.sink.spill.bytes", spill, SpillLog::bytes)
                .description("Size of the spill log").baseUnit("bytes").tags(tags).register(meters);
        Gauge.builder("pgharvest.sink.parked.measurements", parked, SpillLog::undelivered)
                .description("Measurements kept because their table conflicts with the sink").tags(tags)
                .register(meters);
        Gauge.builder("pgharvest.sink.up", this, c -> c.up ? 1 : 0)
                .description("1 when the last write succeeded").tags(tags).register(meters);
        FunctionCounter.builder("pgharvest.sink.written", written, AtomicLong::get)
                .description("Measurements delivered").tags(tags).register(meters);
        FunctionCounter.builder("pgharvest.sink.dropped", dropped, AtomicLong::get)
                .description("Measurements given up: spill bound exceeded, rejected by the sink, spill failure")
                .tags(tags).register(meters);
        FunctionCounter.builder("pgharvest.sink.failures", failures, AtomicLong::get)
                .description("Failed write attempts").tags(tags).register(meters);
        FunctionCounter.builder("pgharvest.sink.spill.quarantined", quarantined, AtomicLong::get)
                .description("Spill records that could not be read, set aside in quarantine/").tags(tags)
                .register(meters);
        FunctionCounter.builder("pgharvest.sink.writer.restarts", writerRestarts, AtomicLong::get)
                .description("Writer loops ended by an unexpected error and restarted").tags(tags).register(meters);
        this.writeTimer = Timer.builder("pgharvest.sink.write.duration")
                .description("Time of successful batch writes").tags(tags).register(meters);
    }

    String name() {
        return sink.name();
    }

    void start() {
        lock.lock();
        try {
            if (state != State.NEW) {
                throw new IllegalStateException("sink " + sink.name() + " was already started");
            }
            state = State.RUNNING;
            writer = Thread.ofVirtual().name("sink-" + sink.name() + "-writer").start(this::runWriter);
            spiller = Thread.ofVirtual().name("sink-" + sink.name() + "-spill").start(this::runSpiller);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues measurements and returns without waiting for the sink. Only when memory holds more
     * than four times its bound (the spiller cannot keep up) does the caller wait for a local
     * disk append. After {@link #stop} measurements go straight to the spill log.
     */
    void publish(List<Measurement> measurements) {
        if (measurements.isEmpty()) {
            return;
        }
        boolean overloaded;
        lock.lock();
        try {
            if (state == State.STOPPED) {
                appendAfterStop(measurements);
                return;
            }
            memory.addAll(measurements);
            queued = memory.size();
            work.signal();
            if (memory.size() <= settings.memoryQueue()) {
                return;
            }
            spillWanted.signal();
            overloaded = memory.size() > settings.memoryHardLimit();
        } finally {
            lock.unlock();
        }
        if (overloaded) {
            // The spiller is not keeping up (a burst, or a slow disk): this caller moves the oldest
            // measurements to disk itself rather than let memory grow without bound.
            moveOldestToDisk();
        }
    }

    /**
     * Stops the writer: a healthy sink gets the queued measurements until the flush timeout, the
     * rest (and any undelivered batch) is persisted to the spill log. Blocks until done.
     */
    void stop() {
        lock.lock();
        try {
            if (state == State.STOPPED || state == State.STOPPING) {
                return;
            }
            if (state == State.NEW) {
                persistRemainder();
                closeSink();
                return;
            }
            state = State.STOPPING;
            flushDeadline = System.nanoTime() + settings.flushTimeout().toNanos();
            work.signalAll();
            spillWanted.signalAll();
        } finally {
            lock.unlock();
        }
        stopSignal.countDown();
        join(spiller, Duration.ofMinutes(5));
        if (!join(writer, settings.flushTimeout().plusSeconds(1))) {
            abandon = true;
            writer.interrupt();
            if (!join(writer, Duration.ofSeconds(5))) {
                log.warn("Sink {}: writer still blocked in the sink after the flush timeout; its batch is "
                        + "persisted and may be delivered twice", sink.name());
            }
        }
        persistRemainder();
        closeSink();
    }

    private void closeSink() {
        try {
            sink.close();
        } catch (Exception e) {
            log.warn("Sink {}: closing failed", sink.name(), e);
        }
    }

    SinkStatus status() {
        return new SinkStatus(sink.name(), type, up, lastError, lastErrorAt, queued, spill.undelivered(),
                spill.bytes(), written.get(), dropped.get(), failures.get(), quarantined.get(), writerFailure,
                writerRestarts.get(), parked.undelivered(), Map.copyOf(conflicts), refused.measurements(),
                refused.batches());
    }

    /** The writer's supervisor: a loop that fails unexpectedly is reported and started again. */
    private void runWriter() {
        probe();
        int restarts = 0;
        while (true) {
            try {
                writeUntilStopped();
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                writerRestarts.incrementAndGet();
                Duration delay = settings.retryBackoff().after(++restarts);
                writerFailure = describe(e);
                recordError("writer failed: " + writerFailure);
                log.error("Sink {}: writer failed, restarting it in {}; measurements are kept", sink.name(), delay, e);
                spill.release();
                try {
                    if (stopSignal.await(delay.toMillis(), TimeUnit.MILLISECONDS) || abandon) {
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
        Pending carried = carriedOver();
        Pending batch;
        while ((batch = carried != null ? carried : nextBatch()) != null) {
            carried = null;
            if (!deliver(batch)) {
                return;
            }
            retryParkedIfDue();
        }
    }

    private Pending carriedOver() {
        lock.lock();
        try {
            return inFlight == null ? null : new Pending(inFlight, null);
        } finally {
            lock.unlock();
        }
    }

    /** At start: a sink with a probe is UP only once it answered; one without is trusted until it fails. */
    private void probe() {
        try {
            if (sink.probe()) {
                markUp();
            } else {
                accepting = true;
            }
        } catch (Exception e) {
            markDown(e);
        }
    }

    /** The next batch in collection order, or null when stopping (or told to abandon). */
    private Pending nextBatch() throws InterruptedException {
        while (!abandon) {
            if (spill.undelivered() > 0) {
                if (stopping() && !flushing()) {
                    return null; // left for the next run; memory goes after it
                }
                SpillLog.Batch fromSpill = readSpill();
                if (fromSpill != null) {
                    return new Pending(fromSpill.measurements(), fromSpill);
                }
                continue;
            }
            lock.lock();
            try {
                if (movingToDisk > 0) {
                    work.await();
                    continue;
                }
                if (spill.undelivered() > 0) {
                    continue;
                }
                if (memory.isEmpty()) {
                    if (state != State.RUNNING) {
                        return null;
                    }
                    work.await();
                    continue;
                }
                long now = System.nanoTime();
                if (state == State.RUNNING && memory.size() < settings.batchSize()) {
                    if (batchDeadline == 0) {
                        batchDeadline = now + settings.batchDelay().toNanos();
                    }
                    if (batchDeadline - now > 0) {
                        work.awaitNanos(batchDeadline - now);
                        continue;
                    }
                }
                if (state != State.RUNNING && now - flushDeadline > 0) {
                    return null;
                }
                batchDeadline = 0;
                int size = Math.min(memory.size(), settings.batchSize());
                var batch = new ArrayList<Measurement>(size);
                for (int i = 0; i < size; i++) {
                    batch.add(memory.pollFirst());
                }
                queued = memory.size();
                inFlight = List.copyOf(batch);
                return new Pending(inFlight, null);
            } finally {
                lock.unlock();
            }
        }
        return null;
    }

    private SpillLog.Batch readSpill() throws InterruptedException {
        try {
            return spill.read(settings.batchSize());
        } catch (IOException e) {
            recordError("reading the spill log failed: " + e.getMessage());
            log.error("Sink {}: reading the spill log failed; its oldest segment is skipped", sink.name(), e);
            try {
                dropped.addAndGet(spill.discardHead());
            } catch (IOException again) {
                log.error("Sink {}: cannot discard the unreadable spill segment; retrying later", sink.name(), again);
                stopSignal.await(settings.retryMax().toMillis(), TimeUnit.MILLISECONDS);
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
                writeStartedNanos = started;
                try {
                    sink.write(batch.measurements());
                } finally {
                    writeStartedNanos = 0;
                }
                delivered(batch, batch.measurements().size(), started);
                return true;
            } catch (SinkRejectedException e) {
                int rejected = e.rejected().size();
                recordError(e.getMessage());
                if (e.quarantined()) {
                    refused.keep(e);
                } else if (e.parked()) {
                    park(e);
                } else {
                    dropped.addAndGet(rejected);
                    log.error("Sink {}: {} measurements can never be written and are dropped: {}",
                            sink.name(), rejected, e.getMessage(), e.getCause());
                }
                delivered(batch, batch.measurements().size() - rejected, started);
                return true;
            } catch (Exception e) {
                failures.incrementAndGet();
                consecutiveFailures++;
                markDown(e);
                boolean onDisk = batch.fromSpill() != null ? releaseSpillBatch() : moveInFlightToDisk(batch);
                boolean retry = awaitRetry(e instanceof SinkRetryAfterException later ? later.retryAfter()
                        : Duration.ZERO);
                if (onDisk || !retry) {
                    return retry;
                }
                // Could not be put on disk: retried from memory (and persisted at shutdown).
            }
        }
    }

    /** Keeps measurements whose table conflicts with the sink on disk, and says which tables. */
    private void park(SinkRejectedException e) {
        boolean newConflict = !conflicts.keySet().containsAll(e.conflicts().keySet());
        conflicts.putAll(e.conflicts());
        if (newConflict) {
            log.error("Sink {}: {}; the other metrics keep flowing, retried every {}", sink.name(), e.getMessage(),
                    settings.retryMax());
        }
        try {
            parked.append(e.rejected());
        } catch (IOException | RuntimeException failure) {
            dropped.addAndGet(e.rejected().size());
            log.error("Sink {}: {} measurements of conflicting tables could not be kept and are dropped",
                    sink.name(), e.rejected().size(), failure);
        }
        nextParkedRetry = System.nanoTime() + settings.retryMax().toNanos();
    }

    /**
     * Every retry-max, while the sink works, tries the oldest parked measurements again: once
     * their table is fixed they are delivered (late, out of order with newer ones) and the
     * conflict disappears from health.
     */
    private void retryParkedIfDue() throws InterruptedException {
        if (parked.undelivered() == 0 || !up || System.nanoTime() - nextParkedRetry < 0) {
            return;
        }
        nextParkedRetry = System.nanoTime() + settings.retryMax().toNanos();
        SpillLog.Batch batch;
        try {
            batch = parked.read(settings.batchSize());
        } catch (IOException e) {
            log.error("Sink {}: reading parked measurements failed", sink.name(), e);
            return;
        }
        if (batch == null) {
            return;
        }
        try {
            sink.write(batch.measurements());
            conflictsResolved(batch.measurements());
            written.addAndGet(batch.measurements().size());
        } catch (SinkRejectedException e) {
            written.addAndGet(batch.measurements().size() - e.rejected().size());
            conflictsResolved(batch.measurements().stream().filter(m -> !e.conflicts().containsKey(m.metric())).toList());
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

    private void conflictsResolved(List<Measurement> delivered) {
        for (Measurement m : delivered) {
            if (conflicts.remove(m.metric()) != null) {
                log.info("Sink {}: table {} accepts measurements again", sink.name(), m.metric());
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
        lock.lock();
        try {
            inFlight = null;
        } finally {
            lock.unlock();
        }
        return true;
    }

    /**
     * Waits until the next attempt: the back-off of the failures so far, or longer when the sink
     * asked for it ({@link SinkRetryAfterException}); cut short when a probe succeeds (checked
     * every {@link #PROBE_INTERVAL}, but not before the time the sink asked for).
     *
     * @return false when stopping
     */
    private boolean awaitRetry(Duration asked) throws InterruptedException {
        long now = System.nanoTime();
        long notBefore = now + asked.toNanos();
        long deadline = Math.max(now + settings.retryBackoff().after(consecutiveFailures).toNanos(), notBefore);
        while (!stopping() && !abandon) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return true;
            }
            if (stopSignal.await(Math.min(left, PROBE_INTERVAL.toNanos()), TimeUnit.NANOSECONDS)) {
                break;
            }
            if (System.nanoTime() - notBefore < 0) {
                continue;
            }
            try {
                if (sink.probe()) {
                    return true;
                }
            } catch (Exception e) {
                recordError(describe(e));
            }
        }
        return false;
    }

    private void delivered(Pending batch, int count, long started) {
        writeTimer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        written.addAndGet(count);
        if (batch.fromSpill() != null) {
            try {
                spill.ack(batch.fromSpill());
            } catch (IOException e) {
                recordError("recording delivery in the spill log failed: " + e.getMessage());
                log.error("Sink {}: delivered batch could not be marked in the spill log; it may be delivered "
                        + "again after a restart", sink.name(), e);
            }
        } else {
            lock.lock();
            try {
                inFlight = null;
            } finally {
                lock.unlock();
            }
        }
        writerFailure = null;
        markUp();
    }

    private void markUp() {
        Instant since = downSince;
        if (since != null) {
            log.info("Sink {} is writing again after {}; {} measurements wait in the spill log", sink.name(),
                    Duration.between(since, clock.instant()), spill.undelivered());
        }
        consecutiveFailures = 0;
        accepting = true;
        up = true;
        downSince = null;
    }

    private void markDown(Exception e) {
        recordError(describe(e));
        up = false;
        accepting = false;
        if (downSince == null) {
            downSince = clock.instant();
            log.warn("Sink {} is down: {}; measurements are kept on disk and retried", sink.name(), describe(e), e);
            lock.lock();
            try {
                spillWanted.signalAll(); // from now on memory goes to disk every SPILL_INTERVAL
            } finally {
                lock.unlock();
            }
        }
    }

    private void recordError(String message) {
        lastError = message;
        lastErrorAt = clock.instant();
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /**
     * While stopping, a sink that takes writes is still given the spilled measurements until the
     * flush deadline: at start-up the spiller may have moved memory to disk before the first probe
     * answered, and a healthy sink should not leave them behind for the next run.
     */
    private boolean flushing() {
        lock.lock();
        try {
            return state == State.STOPPING && accepting && System.nanoTime() - flushDeadline < 0;
        } finally {
            lock.unlock();
        }
    }

    private boolean stopping() {
        lock.lock();
        try {
            return state != State.RUNNING;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves memory to disk: above the memory bound down to half of it, and while the sink does
     * not accept writes everything, every {@link #SPILL_INTERVAL} (each move is one append and
     * one fsync).
     */
    private void runSpiller() {
        while (true) {
            boolean all;
            lock.lock();
            try {
                while (true) {
                    if (state != State.RUNNING) {
                        return;
                    }
                    if (memory.size() > settings.memoryQueue()) {
                        all = false;
                        break;
                    }
                    boolean notAccepting = !acceptingWrites();
                    if (notAccepting && !memory.isEmpty()) {
                        all = true;
                        break;
                    }
                    // Polls: the sink's state changes without telling the spiller (a write starts hanging).
                    awaitQuietly(spillWanted, SPILL_INTERVAL);
                }
            } finally {
                lock.unlock();
            }
            moveToDisk(all);
            if (all) {
                sleepQuietly(SPILL_INTERVAL); // group commit: gather the next interval's arrivals
            }
        }
    }

    /** Whether memory may wait for the writer: the sink takes writes and no write hangs. */
    private boolean acceptingWrites() {
        long writing = writeStartedNanos;
        return accepting && (writing == 0 || System.nanoTime() - writing < SPILL_INTERVAL.toNanos());
    }

    private static void awaitQuietly(Condition condition, Duration timeout) {
        try {
            condition.awaitNanos(timeout.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void sleepQuietly(Duration duration) {
        try {
            stopSignal.await(duration.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Moves the oldest measurements in memory to the end of the spill log, leaving half the
     * memory bound. {@code appendOrder} makes chunks reach the disk in the order they left
     * memory when the spiller and an overloaded publisher both move some.
     */
    private void moveOldestToDisk() {
        moveToDisk(false);
    }

    /** @param all everything in memory, not only what exceeds half the memory bound */
    private void moveToDisk(boolean all) {
        appendOrder.lock();
        try {
            List<Measurement> chunk;
            lock.lock();
            try {
                int count = all ? memory.size() : memory.size() - settings.memoryQueue() / 2;
                if (count <= 0 || state == State.STOPPED) {
                    return;
                }
                chunk = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    chunk.add(memory.pollFirst());
                }
                queued = memory.size();
                movingToDisk += count;
            } finally {
                lock.unlock();
            }
            try {
                spill.append(chunk);
            } catch (IOException | RuntimeException e) {
                dropped.addAndGet(chunk.size());
                recordError("spilling to disk failed: " + e.getMessage());
                log.error("Sink {}: spilling {} measurements to disk failed; they are dropped", sink.name(),
                        chunk.size(), e);
            } finally {
                lock.lock();
                try {
                    movingToDisk -= chunk.size();
                    work.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        } finally {
            appendOrder.unlock();
        }
    }

    private void persistRemainder() {
        appendOrder.lock(); // a chunk an overloaded publisher is moving is older than memory
        lock.lock();
        try {
            state = State.STOPPED;
            List<Measurement> rest = new ArrayList<>(memory);
            memory.clear();
            queued = 0;
            try {
                if (inFlight != null) {
                    spill.prepend(inFlight);
                    inFlight = null;
                }
                spill.append(rest);
                if (spill.undelivered() > 0) {
                    log.info("Sink {}: {} measurements kept in the spill log for the next start", sink.name(),
                            spill.undelivered());
                }
            } catch (IOException e) {
                dropped.addAndGet(rest.size());
                log.error("Sink {}: persisting {} queued measurements at shutdown failed", sink.name(), rest.size(), e);
            }
            try {
                spill.close();
                parked.close();
                refused.close();
            } catch (IOException e) {
                log.warn("Sink {}: closing the spill log failed", sink.name(), e);
            }
        } finally {
            lock.unlock();
            appendOrder.unlock();
        }
    }

    private void appendAfterStop(List<Measurement> measurements) {
        if (!warnedAfterStop) {
            warnedAfterStop = true;
            log.warn("Sink {}: measurements published after shutdown go to the spill log", sink.name());
        }
        try {
            spill.append(measurements);
            spill.close();
        } catch (IOException e) {
            dropped.addAndGet(measurements.size());
            log.error("Sink {}: spilling {} late measurements failed", sink.name(), measurements.size(), e);
        }
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
