package io.pgharvest.window;

import java.util.List;

/**
 * The recent window's points as collected, for a reader that replays a metric's rows (alert rules'
 * test against the last hour). The window keeps the {@link ChartedColumns} only, one series per
 * column and row tags; rows come back by grouping the series' points by time and tags. A
 * measurement without rows leaves no point.
 */
public interface RecordedPoints {

    /**
     * The series of {@code metric} from {@code source} with their points at or after
     * {@code fromMillis}, values as collected (a counter's raw value, not its rate; kind
     * {@code gauge}), oldest first; empty when the window has none.
     */
    List<Series> recorded(String source, String metric, long fromMillis);
}
