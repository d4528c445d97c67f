package io.pgharvest.sink;

import java.time.Duration;

/**
 * Thrown by {@link Sink#write} when nothing was delivered and the receiver said when to come back
 * (HTTP 429 or 503 with {@code Retry-After}): the batch is kept like after any failure, and the
 * next attempt waits at least {@link #retryAfter()}, even when the back-off would be shorter.
 */
public class SinkRetryAfterException extends Exception {

    private final Duration retryAfter;

    public SinkRetryAfterException(String message, Duration retryAfter) {
        super(message);
        this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
