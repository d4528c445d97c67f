package io.pgharvest.history;

import io.pgharvest.window.KeyNumbers;
import io.pgharvest.window.Plan;
import io.pgharvest.window.Series;
import io.pgharvest.window.SeriesKind;
import io.pgharvest.window.Statement;
import io.pgharvest.window.TimeRange;
import io.pgharvest.window.WaitShare;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Reads a source's past back from one store a sink writes. Every read is bounded: aggregated by
 * the store to at most {@link TimeRange#MAX_POINTS} points a series, on the reader's own
 * connections with its own timeouts, never another source's rows. Reads are called from request
 * threads, several at once; a reader is thread-safe.
 */
public interface HistoryReader extends AutoCloseable {

    /** The store's name in answers: {@code postgres}, {@code prometheus}. */
    String store();

    /** How far back the store keeps rows; zero when it cannot tell. */
    Duration retention();

    /**
     * One metric's series over the range, bucketed at its step: a gauge's mean, a rate's change per
     * second (the window's {@link SeriesKind#COUNTER} rule: the change between two collections
     * over their seconds, no change across a reset), a delta's sum.
     *
     * @param columns the metric's charted columns and their kinds
     * @param tags only rows whose tags include these (empty: every row)
     * @return the series, their tags as the store holds them
     */
    List<Series> series(String source, TimeRange range, String metric, Map<String, SeriesKind> columns,
            Map<String, String> tags) throws HistoryReadException;

    /** The source's statements summed over the range from the stored query_stats deltas, at most {@code limit}. */
    List<Statement> statements(String source, TimeRange range, int limit) throws HistoryReadException;

    /**
     * Every source's key numbers over the range in one read of the whole store (never a read per
     * source), by source name, each saying this store answered; a source the store holds no rows
     * of is absent. The default holds none.
     */
    default Map<String, KeyNumbers> keyNumbers(TimeRange range) throws HistoryReadException {
        return Map.of();
    }

    /** The statement's newest text, or null when the store holds none. */
    default String text(String source, String queryid) throws HistoryReadException {
        return null;
    }

    /** The statement's plans over the range, one per run of a plan hash, newest first. */
    default List<Plan> plans(String source, String queryid, TimeRange range) throws HistoryReadException {
        return List.of();
    }

    /** The share of the range's session samples per wait event, of one statement or all when null. */
    default List<WaitShare> waits(String source, String queryid, TimeRange range) throws HistoryReadException {
        return List.of();
    }

    /** Releases the reader's connections. */
    @Override
    void close();
}
