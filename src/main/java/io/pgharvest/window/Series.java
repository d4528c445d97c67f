package io.pgharvest.window;

import java.util.Map;

/**
 * One series as read from the window for a span, counters already turned into rates per second.
 *
 * @param metric the metric's storage name
 * @param column the column
 * @param tags the row's tags (empty for one-row metrics)
 * @param kind {@code gauge}: as read; {@code rate}: a counter's change per second between two
 *     points (a reset gives no point); {@code delta}: the amount of each collection interval
 * @param times epoch milliseconds, oldest first
 * @param values one per time
 */
record Series(String metric, String column, Map<String, String> tags, SeriesKind kind, long[] times,
        double[] values) {
}
