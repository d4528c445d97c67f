package io.pgharvest.reaper.isolation;

import io.pgharvest.support.Backoff;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Metrics that failed inside a pipeline and now run on their own, so that they can no longer
 * abort the pipeline of the healthy ones. A solo metric is retried alone with capped back-off
 * and returns to the pipeline after its first success. A metric whose SQL holds several
 * statements is pinned here: its results cannot be told apart inside a pipeline.
 *
 * <p>Before a metric gets here it is a suspect: one of a failed pipeline's metrics, kept out of
 * the healthy pipeline while {@link io.pgharvest.reaper.tick.TickRunner} narrows the failure down a few round trips per
 * tick ({@link SuspectGroups}, held here so that the search outlives the tick). Only a suspect
 * that fails on its own (alone) moves here, or a metric the server pointed at, or one that failed
 * for a missing object on a sibling database of the instance ({@link #startAlone}), which is tried
 * alone once before it may join the pipeline.
 *
 * <p>Not thread-safe: owned by one reaper.
 */
public final class SoloLane {

    private final Duration maxBackoff;
    private final Map<String, Entry> entries = new HashMap<>();
    private final SuspectGroups suspects = new SuspectGroups();
    /** Metrics started here on a hint ({@link #startAlone}): a hint is taken once per metric. */
    private final Set<String> startedOnHint = new HashSet<>();

    public SoloLane(Duration maxBackoff) {
        this.maxBackoff = maxBackoff;
    }

    public boolean contains(String metric) {
        return entries.containsKey(metric);
    }

    /**
     * Metrics of failed pipelines, neither cleared by a trial that succeeded nor moved here yet:
     * they stay out of the healthy pipeline until then.
     */
    public SuspectGroups suspects() {
        return suspects;
    }

    /** When a solo metric may run next (for ordering retries: the longest waiting first). */
    public Instant retryAt(String metric) {
        Entry entry = entries.get(metric);
        return entry == null ? Instant.MIN : entry.retryAt();
    }

    /** Whether a solo metric's back-off has passed at {@code now}. */
    public boolean readyToRetry(String metric, Instant now) {
        Entry entry = entries.get(metric);
        return entry == null || !now.isBefore(entry.retryAt());
    }

    /**
     * Records a failure; the first one moves the metric here, later ones lengthen the back-off.
     *
     * @param gridPoint the grid point of the failing tick (not its actual start time, which
     *     jitters: back-off must land on a later grid point exactly)
     * @param missingObject whether it failed for an object the server lacks ({@link MissingObject}):
     *     it waits the cap from the first failure on
     */
    public void fail(String metric, Duration interval, Instant gridPoint, boolean missingObject) {
        suspects.isolated(metric);
        Entry previous = entries.get(metric);
        int failures = previous == null ? 1 : previous.failures() + 1;
        // The first retry is the metric's next regular run, then the gap doubles up to the cap;
        // a missing object waits the cap at once.
        Backoff backoff = new Backoff(interval, maxBackoff.compareTo(interval) < 0 ? interval : maxBackoff);
        Duration delay = missingObject ? backoff.max() : backoff.after(failures - 1);
        entries.put(metric, new Entry(failures, gridPoint.plus(delay), previous != null && previous.pinned()));
    }

    /**
     * Starts a metric here that has not failed on this source but probably will (it failed on a
     * sibling database of the instance for a missing object): it runs alone, due now. Once only:
     * after it succeeds alone it returns to the pipeline for good.
     *
     * @return whether it was started here now
     */
    public boolean startAlone(String metric) {
        if (entries.containsKey(metric) || !startedOnHint.add(metric)) {
            return false;
        }
        entries.put(metric, new Entry(0, Instant.MIN, false));
        return true;
    }

    /** Keeps {@code metric} here for good: it runs alone on its schedule, without back-off. */
    public void pin(String metric) {
        entries.put(metric, new Entry(0, Instant.MIN, true));
    }

    public void recovered(String metric) {
        Entry entry = entries.get(metric);
        if (entry != null && entry.pinned()) {
            entries.put(metric, new Entry(0, Instant.MIN, true));
        } else {
            entries.remove(metric);
        }
    }

    public void retainOnly(Set<String> metrics) {
        entries.keySet().retainAll(metrics);
        startedOnHint.retainAll(metrics);
        suspects.retainOnly(metrics);
    }

    Set<String> metrics() {
        return Set.copyOf(entries.keySet());
    }

    private record Entry(int failures, Instant retryAt, boolean pinned) {
    }
}
