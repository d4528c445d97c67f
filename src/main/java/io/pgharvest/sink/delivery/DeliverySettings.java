package io.pgharvest.sink.delivery;

import io.pgharvest.support.Backoff;
import java.time.Duration;

/**
 * How one sink's queue batches, spills and retries, from the options every {@code pgharvest.sinks}
 * entry has (docs/sinks.md gives their meanings); {@code diskBound} in bytes.
 */
public record DeliverySettings(
        int batchSize,
        Duration batchDelay,
        int memoryQueue,
        long diskBound,
        Duration retryInitial,
        Duration retryMax,
        Duration flushTimeout) {

    /** How long to wait after failed writes: doubles from retryInitial up to retryMax. */
    Backoff retryBackoff() {
        return new Backoff(retryInitial, retryMax);
    }

    /** Memory held above this many measurements means the spiller is not keeping up: publishers help. */
    long memoryHardLimit() {
        return 4L * memoryQueue;
    }
}
