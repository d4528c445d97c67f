package io.pgharvest.sink;

import java.time.Duration;

/** How one sink's queue batches, spills and retries; see {@link SinkProperties} for meanings. */
record DeliverySettings(
        int batchSize,
        Duration batchDelay,
        int memoryQueue,
        long diskBound,
        Duration retryInitial,
        Duration retryMax,
        Duration flushTimeout) {

    static DeliverySettings of(SinkProperties p) {
        return new DeliverySettings(p.batchSize(), p.batchDelay(), p.memoryQueue(), p.diskBound().toBytes(),
                p.retryInitial(), p.retryMax(), p.flushTimeout());
    }

    /** Delay before retry number {@code attempt} (0-based): doubles from retryInitial up to retryMax. */
    Duration retryDelay(int attempt) {
        long initial = retryInitial.toMillis();
        long delay = attempt >= 30 ? Long.MAX_VALUE : initial << attempt;
        return Duration.ofMillis(delay < initial ? retryMax.toMillis() : Math.min(delay, retryMax.toMillis()));
    }

    /** Memory held above this many measurements means the spiller is not keeping up: publishers help. */
    long memoryHardLimit() {
        return 4L * memoryQueue;
    }
}
