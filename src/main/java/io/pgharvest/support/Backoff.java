package io.pgharvest.support;

import java.time.Duration;

/** Capped exponential back-off: {@code first, 2*first, 4*first, ...} never above {@code max}. */
public record Backoff(Duration first, Duration max) {

    /** The delay after {@code failures} consecutive failures (1 = the first failure). */
    public Duration after(int failures) {
        if (failures <= 0) {
            return Duration.ZERO;
        }
        int doublings = Math.min(failures - 1, 30);
        long millis = first.toMillis() << doublings;
        return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
    }
}
