package io.pgharvest.sink.delivery;

import io.pgharvest.model.BoundedText;
import io.pgharvest.sink.Sink;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one sink's channel believes about its sink: UP (a write or probe succeeded), accepting
 * writes, the last error and since when it is down, the error that ended the writer's last loop,
 * and whether a write is hanging.
 *
 * <p>Threads: the writer changes the state (its supervisor too, the spiller only records errors);
 * the spiller, health and the status API read it at any time. Every field shared across threads is
 * volatile; {@code consecutiveFailures} is the writer's own.
 */
final class SinkHealth {

    private static final Logger log = LoggerFactory.getLogger(SinkHealth.class);

    private final String sink;
    private final Clock clock;
    /** Measurements in the spill log, for the log line when the sink recovers. */
    private final LongSupplier spilled;
    /** Told when the sink goes down: from then on memory goes to disk every SPILL_INTERVAL. */
    private final Runnable wentDown;

    /** True only after a write or probe succeeded, until the next failure. */
    private volatile boolean up;
    /**
     * The sink is believed to take writes: false at start until its probe answered (or it has no
     * probe), and from a failure to the next success. While false, memory goes to disk every
     * SPILL_INTERVAL.
     */
    private volatile boolean accepting;
    /** System.nanoTime() when the running write began, 0 while no write runs. */
    private volatile long writeStartedNanos;
    private volatile String writerFailure;
    private volatile String lastError;
    private volatile Instant lastErrorAt;
    private volatile Instant downSince;
    private int consecutiveFailures;

    SinkHealth(String sink, Clock clock, LongSupplier spilled, Runnable wentDown) {
        this.sink = sink;
        this.clock = clock;
        this.spilled = spilled;
        this.wentDown = wentDown;
    }

    /** At start: a sink with a probe is UP only once it answered; one without is trusted until it fails. */
    void probeAtStart(Sink target) {
        try {
            if (target.probe()) {
                markUp();
            } else {
                accepting = true;
            }
        } catch (Exception e) {
            markDown(e);
        }
    }

    void markUp() {
        Instant since = downSince;
        if (since != null) {
            log.info("Sink {} is writing again after {}; {} measurements wait in the spill log", sink,
                    Duration.between(since, clock.instant()), spilled.getAsLong());
        }
        consecutiveFailures = 0;
        accepting = true;
        up = true;
        downSince = null;
    }

    /** A write failed: counts it, and the first failure of an outage is logged and wakes the spiller. */
    void writeFailed(Exception e) {
        consecutiveFailures++;
        markDown(e);
    }

    private void markDown(Exception e) {
        recordError(describe(e));
        up = false;
        accepting = false;
        if (downSince == null) {
            downSince = clock.instant();
            log.warn("Sink {} is down: {}; measurements are kept on disk and retried", sink, describe(e), e);
            wentDown.run();
        }
    }

    /** Failed writes since the last success (writer thread only). */
    int consecutiveFailures() {
        return consecutiveFailures;
    }

    void recordError(String message) {
        lastError = BoundedText.of(message);
        lastErrorAt = clock.instant();
    }

    void writerFailed(String failure) {
        writerFailure = failure;
        recordError("writer failed: " + failure);
    }

    void writerRecovered() {
        writerFailure = null;
    }

    void writeStarted(long nanos) {
        writeStartedNanos = nanos;
    }

    void writeEnded() {
        writeStartedNanos = 0;
    }

    /** Whether memory may wait for the writer: the sink takes writes and no write hangs. */
    boolean acceptingWrites() {
        long writing = writeStartedNanos;
        return accepting && (writing == 0 || System.nanoTime() - writing < Spiller.SPILL_INTERVAL.toNanos());
    }

    /** Whether the sink is believed to take writes, a hanging write or not. */
    boolean accepting() {
        return accepting;
    }

    boolean up() {
        return up;
    }

    String lastError() {
        return lastError;
    }

    Instant lastErrorAt() {
        return lastErrorAt;
    }

    String writerFailure() {
        return writerFailure;
    }

    static String describe(Throwable e) {
        String message = BoundedText.of(e.getMessage());
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
