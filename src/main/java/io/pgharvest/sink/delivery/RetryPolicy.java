package io.pgharvest.sink.delivery;

import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkRetryAfterException;
import io.pgharvest.support.Backoff;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * When the writer tries again after a failure: a failed write waits the capped back-off of the
 * failures so far (retry-initial doubling up to retry-max), cut short as soon as a probe of the
 * sink succeeds, probed every {@link #PROBE_INTERVAL}; a writer loop that died waits
 * the same back-off of its restarts. A sink that asks for a delay ({@link SinkRetryAfterException},
 * HTTP Retry-After) is neither written to nor probed before that delay has passed.
 *
 * <p>Used by the writer thread only; waits end at once when the channel stops.
 */
final class RetryPolicy {

    /** How often a failing sink is probed between write attempts. */
    static final Duration PROBE_INTERVAL = Duration.ofSeconds(1);

    private final Backoff backoff;
    private final Sink sink;
    private final SinkHealth health;
    private final StopSignal stop;

    RetryPolicy(Backoff backoff, Sink sink, SinkHealth health, StopSignal stop) {
        this.backoff = backoff;
        this.sink = sink;
        this.health = health;
        this.stop = stop;
    }

    /** How long to wait after {@code failures} consecutive failures (1 = the first). */
    Duration delayAfter(int failures) {
        return backoff.after(failures);
    }

    /**
     * Waits until the next attempt after the writer's consecutive failures, or until a probe
     * answers.
     *
     * @param stopping whether the channel is stopping, checked between probes
     * @param failure what the failed write threw: a {@link SinkRetryAfterException} sets the
     *     earliest next attempt
     * @return false when stopping (or told to abandon)
     */
    boolean awaitRetry(BooleanSupplier stopping, Exception failure) throws InterruptedException {
        long now = System.nanoTime();
        // A sink that asked for a delay (HTTP Retry-After) is neither written to nor probed before it.
        long notBefore = now + (failure instanceof SinkRetryAfterException later ? later.retryAfter() : Duration.ZERO)
                .toNanos();
        long deadline = Math.max(now + delayAfter(health.consecutiveFailures()).toNanos(), notBefore);
        while (!stopping.getAsBoolean() && !stop.abandoned()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return true;
            }
            if (stop.await(Duration.ofNanos(Math.min(left, PROBE_INTERVAL.toNanos())))) {
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
                health.recordError(SinkHealth.describe(e));
            }
        }
        return false;
    }
}
