package io.pgharvest.model;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one metric returned for one source at one time: this is what flows from reapers to sinks.
 *
 * @param source the source name (pgwatch's {@code dbname})
 * @param metric the metric's storage name
 * @param time collection time (the metric's {@code epoch_ns} column when it returns one)
 * @param rows one map per result row, column to value (numbers, strings, booleans or null);
 *     {@code tag_} columns are moved to {@link Row#tags()} under their name without the prefix
 * @param tags the source's custom tags, common to every row
 */
public record Measurement(String source, String metric, Instant time, List<Row> rows, Map<String, String> tags) {

    public Measurement {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(time, "time");
        rows = List.copyOf(rows);
        tags = tags == null ? Map.of() : Map.copyOf(tags);
    }

    /**
     * One result row: values keep the column order. Tags come from the query's {@code tag_*}
     * columns and are keyed by the name after the prefix ({@code tag_datname} is {@code datname}):
     * sinks add a prefix where their format needs one, none strips one.
     */
    public record Row(Map<String, Object> values, Map<String, String> tags) {
        public Row {
            // LinkedHashMap copy, not Map.copyOf: values may be null (SQL NULL) and order matters.
            // RowValues is immutable already and is kept as it is (no copy per row).
            values = values instanceof RowValues ? values : Collections.unmodifiableMap(new LinkedHashMap<>(values));
            tags = RowTags.copyOf(tags); // the same instance for rows as read (ResultSetMapper)
        }
    }
}
