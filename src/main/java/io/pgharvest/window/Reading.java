package io.pgharvest.window;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.List;

/**
 * A source's latest read of one metric: when, how many rows, and the rows themselves for the
 * metrics the database views show ({@link LatestReads#KEPT}; an empty list for the others).
 *
 * @param bytes what the window's memory budget holds for the kept rows
 */
record Reading(String metric, Instant at, int rowCount, List<Measurement.Row> rows, long bytes) {

    Reading {
        rows = List.copyOf(rows);
    }

    /** The estimate the memory budget reserves for {@code rows}: map entries, boxed numbers, strings at 2 bytes a char. */
    static long bytesOf(List<Measurement.Row> rows) {
        long bytes = 0;
        for (Measurement.Row row : rows) {
            bytes += 96;
            for (var cell : row.values().entrySet()) {
                bytes += 48 + (cell.getValue() instanceof String text ? 40 + 2L * text.length() : 24);
            }
            for (var tag : row.tags().entrySet()) {
                bytes += 88 + 2L * tag.getValue().length();
            }
        }
        return bytes;
    }
}
