package io.pgharvest.reaper;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Metrics that failed inside a pipeline and now run on their own, so that they can no longer
 * abort the pipeline of the healthy ones. A solo metric is retried alone with capped back-off
 * and returns to the pipeline after its first success.
 *
 * <p>Not thread-safe: owned by one reaper.
 */
final class SoloLane {

    private final Duration maxBackoff;
    private final Map<String, Entry> entries = new HashMap<>();

    SoloLane(Duration maxBackoff) {
        this.maxBackoff = maxBackoff;
    }

    boolean contains(String metric) {
        return entries.containsKey(metric);
    }

    /** Whether a solo metric's back-off has passed at {@code now}. */
    boolean readyToRetry(String metric, Instant now) {
        Entry entry = entries.get(metric);
        return entry == null || !now.isBefore(entry.retryAt());
    }

    /** Records a failure; the first one moves the metric here, later ones lengthen the back-off. */
    void fail(String metric, Duration interval, Instant now) {
        Entry previous = entries.get(metric);
        int failures = previous == null ? 1 : previous.failures() + 1;
        // The first retry is the metric's next regular run; then the gap doubles up to the cap.
        Duration delay = new Backoff(interval, maxBackoff.compareTo(interval) < 0 ? interval : maxBackoff)
                .after(failures - 1);
        entries.put(metric, new Entry(failures, now.plus(delay)));
    }

    void recovered(String metric) {
        entries.remove(metric);
    }

    void retainOnly(Set<String> metrics) {
        entries.keySet().retainAll(metrics);
    }

    Set<String> metrics() {
        return Set.copyOf(entries.keySet());
    }

    private record Entry(int failures, Instant retryAt) {
    }
}
