package io.pgharvest.window;

import java.time.Duration;
import java.util.Map;

/**
 * One series as read for a range, counters already turned into rates per second.
 *
 * @param metric the metric's storage name
 * @param column the column
 * @param tags the row's tags (empty for one-row metrics)
 * @param kind {@code gauge}: as read; {@code rate}: a counter's change per second between two
 *     points (a reset gives no point); {@code delta}: the amount of each collection interval
 * @param store which store answered: {@code window} (memory, recorded since this process
 *     started), a history reader's store ({@code postgres}, {@code prometheus}), or
 *     {@code snapshot} while some of its points were restored from the window's snapshot after a
 *     restart (until they leave the span)
 * @param step the resolution: the bucket width a store aggregated to (a point's time is its
 *     bucket's start; gauges are the bucket's mean, rates its change over its seconds, deltas its
 *     sum); null when the points are as collected (the window)
 * @param times epoch milliseconds, oldest first
 * @param values one per time
 */
public record Series(String metric, String column, Map<String, String> tags, SeriesKind kind, String store,
        Duration step, long[] times, double[] values) {

    /** The store name of the recent window's own series. */
    public static final String WINDOW = "window";
    /** The store name of series with points restored from the window's snapshot. */
    public static final String SNAPSHOT = "snapshot";

    /** The store of an answer the window gave: {@code snapshot} when any of its series is, else {@code window}. */
    static String storeOf(java.util.List<Series> windowSeries) {
        return windowSeries.stream().anyMatch(series -> SNAPSHOT.equals(series.store())) ? SNAPSHOT : WINDOW;
    }
}
