package io.pgharvest.api;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How many blocking queries ({@code ?index=N}) may wait at once. A parked request holds its
 * request and response objects, buffers and a virtual thread's stack; a few thousand once
 * exhausted the heap (issue 38). Past either cap a request is answered at once with 429 and
 * {@code Retry-After}, never parked.
 *
 * @param maxWaiting blocking queries waiting at once, all clients together
 * @param maxWaitingPerClient blocking queries one client (remote address) may have waiting; the
 *     console keeps one per open page
 * @param retryAfterSeconds what the 429 answer's {@code Retry-After} says
 */
@ConfigurationProperties("pgharvest.api.blocking")
@Validated
public record WaiterProperties(
        @DefaultValue("512") @Min(1) @Max(100_000) int maxWaiting,
        @DefaultValue("64") @Min(1) @Max(100_000) int maxWaitingPerClient,
        @DefaultValue("5") @Min(1) @Max(3600) int retryAfterSeconds) {
}
