package io.pgharvest.sink;

import io.pgharvest.support.Backoff;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * When the writer tries again after a failure: a failed write waits the capped back-off of the
 * failures so far (retry-initial doubling up to retry-max), cut short as soon as a probe of the
 * sink succeeds, probed every {@link SinkChannel#PROBE_INTERVAL}; a writer loop that died waits
 * the same back-off of its restarts. A delay the sink itself asks for belongs in
 * {@link #delayAfter}, so that every wait of the writer follows it.
 *
 * <p>Used by the writer thread only; waits end at once when the channel stops.
 */
final class RetryPolicy {

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
     * @return false when stopping (or told to abandon)
     */
    boolean awaitRetry(BooleanSupplier stopping) throws InterruptedException {
        long deadline = System.nanoTime() + delayAfter(health.consecutiveFailures()).toNanos();
        while (!stopping.getAsBoolean() && !stop.abandoned()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return true;
            }
            if (stop.await(Duration.ofNanos(Math.min(left, SinkChannel.PROBE_INTERVAL.toNanos())))) {
                break;
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
