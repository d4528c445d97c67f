package io.pgharvest.bench;

import java.util.Arrays;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAccumulator;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;

/**
 * Cumulative fixed-bucket histogram of delays, with the bucket bounds Micrometer gives a timer
 * with a percentile histogram (1 ms .. 30 s, plus +Inf): the naive collector records into it, and
 * pgharvest's {@code pgharvest_tick_lag_seconds_bucket} series have the same shape, so both sides
 * are read with the same {@link Counts#quantile}.
 */
final class LagHistogram {

    private final double[] boundsSeconds;
    private final AtomicLongArray counts;
    private final LongAccumulator maxNanos = new LongAccumulator(Math::max, 0);

    LagHistogram() {
        this.boundsSeconds = micrometerTimerBoundsSeconds();
        this.counts = new AtomicLongArray(boundsSeconds.length + 1);
    }

    static double[] micrometerTimerBoundsSeconds() {
        NavigableSet<Double> nanos = DistributionStatisticConfig.builder()
                .percentilesHistogram(true)
                .minimumExpectedValue(1_000_000.0)
                .maximumExpectedValue(30_000_000_000.0)
                .build()
                .getHistogramBuckets(true);
        return nanos.stream().mapToDouble(n -> n / 1e9).toArray();
    }

    void record(long lagNanos) {
        long lag = Math.max(0, lagNanos);
        double seconds = lag / 1e9;
        int index = Arrays.binarySearch(boundsSeconds, seconds);
        int bucket = index >= 0 ? index : -index - 1; // first bound >= value; length means +Inf
        counts.incrementAndGet(bucket);
        maxNanos.accumulate(lag);
    }

    Counts snapshot() {
        long[] copy = new long[counts.length()];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = counts.get(i);
        }
        return Counts.ofBuckets(boundsSeconds, copy, maxNanos.get() / 1e9);
    }

    /**
     * Per-bucket (not cumulative) counts: {@code counts[i]} values fell in
     * {@code (bounds[i-1], bounds[i]]}, the last entry above the last bound.
     */
    record Counts(List<Double> boundsSeconds, List<Long> counts, double maxSeconds) {

        Counts {
            boundsSeconds = List.copyOf(boundsSeconds);
            counts = List.copyOf(counts);
            if (counts.size() != boundsSeconds.size() + 1) {
                throw new IllegalArgumentException("need one count per bound plus one above the last");
            }
        }

        static Counts ofBuckets(double[] bounds, long[] perBucket, double maxSeconds) {
            return new Counts(Arrays.stream(bounds).boxed().toList(), Arrays.stream(perBucket).boxed().toList(),
                    maxSeconds);
        }

        /**
         * From Prometheus-style cumulative {@code le} buckets: {@code cumulative[i]} values were
         * at most {@code bounds[i]}; the last bound is +Inf.
         */
        static Counts ofCumulative(double[] bounds, long[] cumulative, double maxSeconds) {
            int finite = Double.isInfinite(bounds[bounds.length - 1]) ? bounds.length - 1 : bounds.length;
            long[] perBucket = new long[finite + 1];
            long previous = 0;
            for (int i = 0; i < bounds.length; i++) {
                perBucket[Math.min(i, finite)] += cumulative[i] - previous;
                previous = cumulative[i];
            }
            return ofBuckets(Arrays.copyOf(bounds, finite), perBucket, maxSeconds);
        }

        long total() {
            return counts.stream().mapToLong(Long::longValue).sum();
        }

        /** Counts of {@code this} minus those of {@code earlier} (same bounds); max is this one's. */
        Counts minus(Counts earlier) {
            if (!earlier.boundsSeconds.equals(boundsSeconds)) {
                throw new IllegalArgumentException("histograms have different bounds");
            }
            long[] delta = new long[counts.size()];
            for (int i = 0; i < delta.length; i++) {
                delta[i] = counts.get(i) - earlier.counts.get(i);
            }
            return ofBuckets(boundsSeconds.stream().mapToDouble(Double::doubleValue).toArray(), delta, maxSeconds);
        }

        /** Upper bound of the highest non-empty bucket: the largest value was at most this (NaN when empty). */
        double maxBound() {
            for (int i = counts.size() - 1; i >= 0; i--) {
                if (counts.get(i) > 0) {
                    return i < boundsSeconds.size() ? boundsSeconds.get(i) : Double.POSITIVE_INFINITY;
                }
            }
            return Double.NaN;
        }

        /**
         * The upper bound of the bucket holding the q-quantile: "at most this many seconds"
         * (NaN when empty; +Inf when it lies above the last bound). Bucket resolution is about
         * 10-25 % in the 1-100 ms range, so a p99 of "0.001" means at most 1 ms.
         */
        double quantile(double q) {
            long total = total();
            if (total == 0) {
                return Double.NaN;
            }
            long rank = (long) Math.ceil(q * total);
            long seen = 0;
            for (int i = 0; i < counts.size(); i++) {
                seen += counts.get(i);
                if (seen >= rank) {
                    return i < boundsSeconds.size() ? boundsSeconds.get(i) : Double.POSITIVE_INFINITY;
                }
            }
            return Double.POSITIVE_INFINITY;
        }
    }
}
