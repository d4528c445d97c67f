package io.pgharvest.kind;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.List;

/**
 * The rows one metric query returned (public for the benchmark's naive collector).
 *
 * @param reportedTime the time the query reported in an {@code epoch_ns} column, or null
 * @param refusal why the result cannot be delivered although the query succeeded (two columns
 *     of one name, {@link io.pgharvest.model.OutputNames#repeated}), then without rows; null
 *     when it can. The reaper fails the metric with it, before any sink sees the result.
 */
public record FetchedRows(List<Measurement.Row> rows, Instant reportedTime, String refusal) {

    public FetchedRows {
        rows = List.copyOf(rows);
    }

    public FetchedRows(List<Measurement.Row> rows, Instant reportedTime) {
        this(rows, reportedTime, null);
    }

    public static final FetchedRows EMPTY = new FetchedRows(List.of(), null);

    /** A result that is not delivered, for the reason given. */
    public static FetchedRows refused(String why) {
        return new FetchedRows(List.of(), null, why);
    }
}
