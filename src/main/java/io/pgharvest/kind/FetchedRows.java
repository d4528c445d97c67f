package io.pgharvest.kind;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.List;

/**
 * The rows one metric query returned (public for the benchmark's naive collector).
 *
 * @param reportedTime the time the query reported in an {@code epoch_ns} column, or null
 */
public record FetchedRows(List<Measurement.Row> rows, Instant reportedTime) {

    public FetchedRows {
        rows = List.copyOf(rows);
    }

    public static final FetchedRows EMPTY = new FetchedRows(List.of(), null);
}
