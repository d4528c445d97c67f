package io.pgharvest.window;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A range a chart or a statement list asks for, with the resolution a store aggregates it to.
 *
 * @param from the start, inclusive
 * @param to the end, exclusive for a store's buckets (the window includes a point at {@code to})
 * @param step the bucket width: at least {@code (to - from) / MAX_POINTS}, so no series has more
 *     than {@link #MAX_POINTS} points
 */
public record TimeRange(Instant from, Instant to, Duration step) {

    /** The most points a series read from a store has. */
    public static final int MAX_POINTS = 600;
    /** The longest range anyone may ask for. */
    public static final Duration MAX_LENGTH = Duration.ofDays(400);
    /** Bucket widths a default step is taken from: round numbers, so buckets line up with the clock. */
    private static final List<Duration> STEPS = List.of(Duration.ofSeconds(1), Duration.ofSeconds(5),
            Duration.ofSeconds(10), Duration.ofSeconds(15), Duration.ofSeconds(30), Duration.ofMinutes(1),
            Duration.ofMinutes(2), Duration.ofMinutes(5), Duration.ofMinutes(10), Duration.ofMinutes(15),
            Duration.ofMinutes(30), Duration.ofHours(1), Duration.ofHours(2), Duration.ofHours(3), Duration.ofHours(6),
            Duration.ofHours(12), Duration.ofDays(1));

    public TimeRange {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(step, "step");
        if (!to.isAfter(from) || step.isNegative() || step.isZero()) {
            throw new IllegalArgumentException("a range ends after it starts and has a positive step");
        }
    }

    /** The range at the default step: the smallest round width that keeps a series within {@link #MAX_POINTS}. */
    public static TimeRange of(Instant from, Instant to) {
        return new TimeRange(from, to, defaultStep(Duration.between(from, to)));
    }

    /** The smallest step a range of {@code length} may have. */
    public static Duration shortestStep(Duration length) {
        long millis = Math.ceilDiv(length.toMillis(), MAX_POINTS);
        return Duration.ofMillis(Math.max(1000, Math.ceilDiv(millis, 1000) * 1000));
    }

    static Duration defaultStep(Duration length) {
        Duration shortest = shortestStep(length);
        for (Duration step : STEPS) {
            if (step.compareTo(shortest) >= 0) {
                return step;
            }
        }
        return Duration.ofDays(Math.ceilDiv(shortest.toSeconds(), 86_400));
    }

    public Duration length() {
        return Duration.between(from, to);
    }
}
