package io.pgharvest.sink;

import io.pgharvest.sink.delivery.DeliverySettings;
import java.time.Duration;
import org.springframework.util.unit.DataSize;

/** Sink delivery settings for tests: small batches, short delays, quick retries. */
public final class TestSettings {

    private TestSettings() {
    }

    public static DeliverySettings delivery(int batchSize, int memoryQueue, DataSize diskBound) {
        return delivery(batchSize, memoryQueue, diskBound, Duration.ofMillis(20));
    }

    public static DeliverySettings delivery(int batchSize, int memoryQueue, DataSize diskBound, Duration batchDelay) {
        return new DeliverySettings(batchSize, batchDelay, memoryQueue, diskBound.toBytes(), Duration.ofMillis(20),
                Duration.ofMillis(100), Duration.ofSeconds(5));
    }

    /** Production's defaults: batches of 500 within 1s, 10,000 in memory, 1GB on disk, retries 1s to 30s. */
    public static DeliverySettings defaults() {
        return new DeliverySettings(500, Duration.ofSeconds(1), 10_000, DataSize.ofGigabytes(1).toBytes(),
                Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofSeconds(10));
    }
}
