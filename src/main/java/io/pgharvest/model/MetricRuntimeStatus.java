package io.pgharvest.model;

import java.time.Instant;

/** One metric of one source as the reaper sees it, and the lane it runs in. */
public record MetricRuntimeStatus(String name, int intervalSeconds, MetricLane lane, Instant lastSuccess,
        String lastError, Instant lastErrorAt, Instant nextDue) {

    public MetricRuntimeStatus {
        lastError = BoundedText.of(lastError);
    }
}
