package io.pgharvest.window;

import java.util.Arrays;
import java.util.Comparator;

/** Copies a ring's points of a span out, turning a counter into its rate per second. */
final class SeriesReader {

    static final Comparator<Series> ORDER = Comparator.comparing(Series::metric).thenComparing(Series::column)
            .thenComparing(series -> series.tags().toString());

    private SeriesReader() {
    }

    /** The points from {@code from} up to and including {@code to} (epoch milliseconds). */
    static Series read(SeriesKey key, SeriesKind kind, SeriesRing ring, long from, long to) {
        int first = ring.firstAtOrAfter(from);
        int end = to == Long.MAX_VALUE ? ring.size() : ring.firstAtOrAfter(to + 1);
        int count = Math.max(0, end - first);
        long[] times = new long[count];
        double[] values = new double[count];
        int kept = 0;
        for (int i = first; i < end; i++) {
            double value = kind == SeriesKind.COUNTER ? rate(ring, i) : ring.value(i);
            if (!Double.isNaN(value)) {
                times[kept] = ring.time(i);
                values[kept] = value;
                kept++;
            }
        }
        return new Series(key.metric(), key.column(), key.tags(), kind,
                ring.restoredSince(from) ? Series.SNAPSHOT : Series.WINDOW, null, Arrays.copyOf(times, kept),
                Arrays.copyOf(values, kept));
    }

    /**
     * The counter's change per second from point {@code i - 1} to {@code i}; NaN for the first
     * point and across a reset (the counter went down).
     */
    static double rate(SeriesRing ring, int i) {
        if (i == 0) {
            return Double.NaN;
        }
        double change = ring.value(i) - ring.value(i - 1);
        long millis = ring.time(i) - ring.time(i - 1);
        return change < 0 || millis <= 0 ? Double.NaN : change * 1000.0 / millis;
    }
}
