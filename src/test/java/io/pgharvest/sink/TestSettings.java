package io.pgharvest.sink;

import java.time.Duration;
import org.springframework.util.unit.DataSize;

/** Sink settings for tests: small batches, short delays, quick retries. */
public final class TestSettings {

    private TestSettings() {
    }

    public static SinkProperties delivery(SinkType type, int batchSize, int memoryQueue, DataSize diskBound) {
        return delivery(type, batchSize, memoryQueue, diskBound, Duration.ofMillis(20));
    }

    public static SinkProperties delivery(SinkType type, int batchSize, int memoryQueue, DataSize diskBound,
            Duration batchDelay) {
        return new SinkProperties(type, null, null, null, null, null, null, batchSize, batchDelay,
                memoryQueue, diskBound, Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofSeconds(5),
                Duration.ofDays(14), Duration.ofDays(1), 2, Duration.ofHours(1), Duration.ofMinutes(10),
                DataSize.ofMegabytes(64), 5);
    }
}
