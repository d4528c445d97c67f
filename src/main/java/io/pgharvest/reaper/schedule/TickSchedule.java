package io.pgharvest.reaper.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * When each of a source's metrics is next due, on a fixed-rate grid: no drift, ever.
 *
 * <p>The grid has period = GCD of the metric intervals (at least {@code minPeriod}) and is
 * anchored at {@code phase} past the epoch, so grid points are {@code phase + k * period}.
 * A metric first enters at the next grid point and is then due every {@code interval} after
 * that point, independent of how long its runs take. The reaper sleeps until
 * {@link #nextWake()}, which is the earliest due time, so coprime intervals (7 s and 11 s) do
 * not wake it at every 1 s grid point.
 *
 * <p>Not thread-safe: owned by one reaper. Re-planning for a new configuration goes through
 * {@link #replan}, which keeps the due time of every metric that stays.
 */
public final class TickSchedule {

    private final long periodMillis;
    private final long phaseMillis;
    /** metric name -> interval in millis; insertion order is the configured order. */
    private final Map<String, Long> intervals;
    /** metric name -> next due time in epoch millis, always a grid point. */
    private final Map<String, Long> nextDue;

    /** {@link #intervals} as Durations in name order; the schedule never changes its intervals. */
    private final Map<String, Duration> intervalDurations;

    private TickSchedule(long periodMillis, long phaseMillis, Map<String, Long> intervals,
            Map<String, Long> nextDue) {
        this.periodMillis = periodMillis;
        this.phaseMillis = phaseMillis;
        this.intervals = intervals;
        this.nextDue = nextDue;
        var durations = new TreeMap<String, Duration>();
        intervals.forEach((name, ms) -> durations.put(name, Duration.ofMillis(ms)));
        this.intervalDurations = Collections.unmodifiableMap(durations);
    }

    /** An empty schedule: nothing due, ever. */
    public static TickSchedule empty() {
        return new TickSchedule(1000, 0, new TreeMap<>(), new HashMap<>());
    }

    /**
     * Plans {@code metricIntervals} for a source.
     *
     * @param phaseSeed a stable per-source number (e.g. the hash of its name): spreads sources
     *     over the period so a thousand of them do not fire in the same millisecond
     * @param previous the schedule being replaced; metrics in both keep their due time
     */
    public static TickSchedule plan(Map<String, Duration> metricIntervals, Duration minPeriod, long phaseSeed,
            Instant now, TickSchedule previous) {
        var requested = new TreeMap<String, Long>();
        metricIntervals.forEach((name, interval) -> requested.put(name, Math.max(interval.toMillis(), 1)));
        long period = Math.max(gcd(requested.values()), Math.max(minPeriod.toMillis(), 1));
        // Below the floor the GCD is not a divisor of every interval: round intervals up to a
        // multiple of the period so that every run stays on the grid.
        var millis = new TreeMap<String, Long>();
        requested.forEach((name, interval) -> millis.put(name, (interval + period - 1) / period * period));
        long phase = Math.floorMod(phaseSeed, period);
        var schedule = new TickSchedule(period, phase, millis, new HashMap<>());
        long firstPoint = schedule.gridPointAtOrAfter(now.toEpochMilli());
        for (var entry : millis.entrySet()) {
            Long kept = previous == null ? null : previous.nextDue.get(entry.getKey());
            long due = kept == null ? firstPoint : schedule.gridPointAtOrAfter(kept);
            if (kept != null) {
                // A shorter interval brings the next run closer: one new interval after the last
                // run (which was one old interval before the kept due time), never in the past.
                long lastRun = kept - previous.intervals.get(entry.getKey());
                long sooner = schedule.gridPointAtOrAfter(Math.max(now.toEpochMilli(), lastRun + entry.getValue()));
                due = Math.min(due, sooner);
            }
            schedule.nextDue.put(entry.getKey(), due);
        }
        return schedule;
    }

    public Duration period() {
        return Duration.ofMillis(periodMillis);
    }

    public boolean isEmpty() {
        return intervals.isEmpty();
    }

    public Map<String, Duration> intervals() {
        return intervalDurations;
    }

    /** The earliest time any metric is due, or null when the schedule is empty. */
    public Instant nextWake() {
        // A plain loop: this runs on every wake of every reaper.
        long earliest = Long.MAX_VALUE;
        for (long due : nextDue.values()) {
            earliest = Math.min(earliest, due);
        }
        return nextDue.isEmpty() ? null : Instant.ofEpochMilli(earliest);
    }

    /** When {@code metric} is next due, or null if it is not scheduled. */
    public Instant nextDue(String metric) {
        Long due = nextDue.get(metric);
        return due == null ? null : Instant.ofEpochMilli(due);
    }

    /**
     * Takes every metric due at or before {@code now} and moves each to its next due time
     * after {@code now}. A metric whose several due points have passed (the previous tick
     * overran, or the process was paused) runs once; the points it missed are skipped and
     * counted, never queued up.
     */
    public DueTick takeDue(Instant now) {
        long nowMillis = now.toEpochMilli();
        var due = new ArrayList<String>();
        // Each due metric's first passed point, interval and points missed, for counting skipped
        // points; the usual tick (every due metric on one point, none missed) needs no sets.
        long[] firsts = new long[intervals.size()];
        long[] steps = new long[intervals.size()];
        long[] misses = new long[intervals.size()];
        boolean onePoint = true;
        long latestPoint = Long.MIN_VALUE;
        for (var entry : intervals.entrySet()) {
            String name = entry.getKey();
            long interval = entry.getValue();
            long next = nextDue.get(name);
            if (next > nowMillis) {
                continue;
            }
            long missed = (nowMillis - next) / interval;
            long servedPoint = next + missed * interval;
            onePoint &= missed == 0 && (due.isEmpty() || servedPoint == latestPoint);
            firsts[due.size()] = next;
            steps[due.size()] = interval;
            misses[due.size()] = missed;
            latestPoint = Math.max(latestPoint, servedPoint);
            nextDue.put(name, servedPoint + interval);
            due.add(name);
        }
        if (due.isEmpty()) {
            return new DueTick(List.of(), null, 0);
        }
        int skipped = onePoint ? 0 : skippedPoints(due.size(), firsts, steps, misses);
        return new DueTick(List.copyOf(due), Instant.ofEpochMilli(latestPoint), skipped);
    }

    /** Points that passed and that no metric is run for now (one tick may serve several). */
    private static int skippedPoints(int count, long[] firsts, long[] steps, long[] misses) {
        var passedPoints = new TreeSet<Long>();
        var servedPoints = new TreeSet<Long>();
        for (int i = 0; i < count; i++) {
            for (long k = 0; k <= misses[i] && passedPoints.size() < 10_000; k++) {
                passedPoints.add(firsts[i] + k * steps[i]);
            }
            servedPoints.add(firsts[i] + misses[i] * steps[i]);
        }
        passedPoints.removeAll(servedPoints);
        return passedPoints.size();
    }

    /**
     * For a reaper's first plan: the grid point that passed within the last period runs at once
     * unless the last tick before ({@code previousTick}: a previous owner's, for a source taken over
     * from another instance; {@link Instant#EPOCH} for none) was at or after it, so a new source
     * collects at once and a hand-over that took a little longer than the gap between two ticks runs
     * the tick late instead of missing it. Call right after the first {@link #plan}.
     */
    public void resumeAfter(Instant previousTick) {
        long previous = previousTick.toEpochMilli();
        nextDue.replaceAll((name, due) -> due - periodMillis > previous ? due - periodMillis : due);
    }

    private long gridPointAtOrAfter(long epochMillis) {
        long offset = Math.floorMod(epochMillis - phaseMillis, periodMillis);
        return offset == 0 ? epochMillis : epochMillis - offset + periodMillis;
    }

    private static long gcd(Iterable<Long> values) {
        long result = 0;
        for (long value : values) {
            result = gcd(result, value);
        }
        return result == 0 ? 1000 : result;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    /**
     * The metrics to run on one tick.
     *
     * @param scheduledAt the grid point this tick serves (the latest passed), for lag accounting
     * @param skippedPoints grid points that passed without a run because a tick overran
     */
    public record DueTick(List<String> metrics, Instant scheduledAt, int skippedPoints) {
        public boolean isEmpty() {
            return metrics.isEmpty();
        }
    }
}
