package io.pgharvest.window;

/**
 * One series' recent points in two primitive arrays used as a ring (oldest first from
 * {@code start}). It starts small and doubles only while its oldest point is still inside the span
 * and the {@link MemoryBudget} allows, up to {@code maxPoints}; otherwise the newest point
 * overwrites the oldest. So a metric collected every 60 s keeps about 60 points for an hour, one
 * collected every 5 s up to 720, and no series outgrows its cap.
 *
 * <p>Not thread-safe: its {@link SourceWindow} guards it.
 */
final class SeriesRing {

    static final int INITIAL_POINTS = 8;

    private long[] times;
    private double[] values;
    private int start;
    private int size;
    /** The newest time of the points restored from a snapshot; none was when below every point's time. */
    private long restoredUntil = Long.MIN_VALUE;

    private SeriesRing(int capacity) {
        times = new long[capacity];
        values = new double[capacity];
    }

    /** A new ring with its fixed cost and first points reserved, or null when the budget is spent. */
    static SeriesRing open(MemoryBudget budget) {
        return budget.reserve(MemoryBudget.BYTES_PER_SERIES + (long) INITIAL_POINTS * MemoryBudget.BYTES_PER_POINT)
                ? new SeriesRing(INITIAL_POINTS) : null;
    }

    /** What this ring holds reserved: to release when it is dropped. */
    long reservedBytes() {
        return MemoryBudget.BYTES_PER_SERIES + (long) times.length * MemoryBudget.BYTES_PER_POINT;
    }

    /**
     * Appends a point; a point not newer than the last is ignored (the same measurement seen twice,
     * or a clock step back).
     */
    void append(long time, double value, long spanMillis, int maxPoints, MemoryBudget budget) {
        if (size > 0 && time <= newestTime()) {
            return;
        }
        if (size == times.length && times[start] > time - spanMillis && times.length < maxPoints) {
            grow(Math.min(maxPoints, times.length * 2), budget);
        }
        if (size == times.length) {
            times[start] = time;
            values[start] = value;
            start = (start + 1) % times.length;
        } else {
            int at = (start + size) % times.length;
            times[at] = time;
            values[at] = value;
            size++;
        }
    }

    private void grow(int capacity, MemoryBudget budget) {
        if (!budget.reserve((long) (capacity - times.length) * MemoryBudget.BYTES_PER_POINT)) {
            return;
        }
        long[] newTimes = new long[capacity];
        double[] newValues = new double[capacity];
        for (int i = 0; i < size; i++) {
            newTimes[i] = times[(start + i) % times.length];
            newValues[i] = values[(start + i) % times.length];
        }
        times = newTimes;
        values = newValues;
        start = 0;
    }

    int size() {
        return size;
    }

    /** Marks every point held now as restored from a snapshot (called once, after the restore appended them). */
    void markRestored() {
        if (size > 0) {
            restoredUntil = newestTime();
        }
    }

    /** Whether a point at or after {@code from} was restored from a snapshot rather than recorded since the start. */
    boolean restoredSince(long from) {
        int first = firstAtOrAfter(from);
        return first < size && time(first) <= restoredUntil;
    }

    long newestTime() {
        return times[(start + size - 1) % times.length];
    }

    long time(int i) {
        return times[(start + i) % times.length];
    }

    double value(int i) {
        return values[(start + i) % times.length];
    }

    int capacity() {
        return times.length;
    }

    /** The index of the first point at or after {@code from}, or {@link #size()} when none is. */
    int firstAtOrAfter(long from) {
        int low = 0;
        int high = size;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (time(middle) < from) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }
}
