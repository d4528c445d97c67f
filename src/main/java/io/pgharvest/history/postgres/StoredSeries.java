package io.pgharvest.history.postgres;

import io.pgharvest.window.Series;
import io.pgharvest.window.SeriesKind;
import io.pgharvest.window.TimeRange;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * One metric's series of one source over a range, bucketed by the server with {@code date_bin}
 * at the range's step (buckets start at whole multiples of the step since the Unix epoch).
 *
 * <p>Kinds come from the window's {@code ChartedColumns} and are computed as the window computes
 * them: a gauge is the bucket's mean; a counter's rate is, for each pair of consecutive
 * collections of one series, the change over the seconds between them, with no change across a
 * reset (the counter went down), summed over the bucket and divided by the bucket's seconds of
 * such pairs (so at one collection a bucket it is the window's rate exactly); a delta is the
 * bucket's sum. A pair whose later collection is in the bucket counts in it, so the reads reach
 * one lookback before the range for the first pair.
 */
final class StoredSeries {

    /** How far before a range a counter's previous collection is looked for. */
    static final Duration LOOKBACK = Duration.ofMinutes(15);

    private static final JsonMapper JSON = JsonMapper.shared();

    private StoredSeries() {
    }

    static String sql(String table, boolean tagFilter) {
        return """
                WITH columns(col, kind) AS (SELECT * FROM unnest(?::text[], ?::text[])),
                points AS (
                    SELECT m.time, coalesce(m.tag_data, '{}'::jsonb) AS tags, c.col, c.kind,
                           (m.data ->> c.col)::float8 AS v
                      FROM %s m
                      JOIN columns c ON jsonb_typeof(m.data -> c.col) = 'number'
                     WHERE m.dbname = ? AND m.time >= ? AND m.time < ?%s
                ),
                pairs AS (
                    SELECT time, tags, col, kind, v,
                           v - lag(v) OVER w AS change,
                           extract(epoch FROM time - lag(time) OVER w)::float8 AS seconds
                      FROM points
                    WINDOW w AS (PARTITION BY tags, col ORDER BY time)
                )
                SELECT (extract(epoch FROM date_bin(?::interval, time, TIMESTAMPTZ '1970-01-01 00:00:00+00'))
                           * 1000)::int8 AS bucket,
                       tags::text AS tags, col,
                       CASE min(kind)
                           WHEN 'rate' THEN sum(change) FILTER (WHERE change >= 0 AND seconds > 0)
                                / nullif(sum(seconds) FILTER (WHERE change >= 0 AND seconds > 0), 0)
                           WHEN 'delta' THEN sum(v)
                           ELSE avg(v)
                       END AS value
                  FROM pairs
                 WHERE time >= ?
                 GROUP BY 1, 2, 3
                 ORDER BY 2, 3, 1
                """.formatted(table, tagFilter ? " AND m.tag_data @> ?::jsonb" : "");
    }

    static List<Series> read(Connection c, String source, TimeRange range, String metric,
            Map<String, SeriesKind> columns, Map<String, String> tags) throws SQLException {
        var names = new ArrayList<>(columns.keySet());
        names.sort(null);
        String[] kinds = names.stream().map(name -> wireName(columns.get(name))).toArray(String[]::new);
        boolean rates = columns.containsValue(SeriesKind.COUNTER);
        Duration lookback = rates ? (range.step().compareTo(LOOKBACK) > 0 ? range.step() : LOOKBACK) : Duration.ZERO;
        try (PreparedStatement s = c.prepareStatement(sql(PostgresHistoryReader.table(metric), !tags.isEmpty()))) {
            int i = 1;
            s.setArray(i++, c.createArrayOf("text", names.toArray()));
            s.setArray(i++, c.createArrayOf("text", kinds));
            s.setString(i++, source);
            PostgresHistoryReader.bindRange(s, i, range.from().minus(lookback), range.to());
            i += 2;
            if (!tags.isEmpty()) {
                s.setString(i++, JSON.writeValueAsString(tags));
            }
            s.setString(i++, range.step().toMillis() + " milliseconds");
            s.setObject(i, java.time.OffsetDateTime.ofInstant(range.from(), java.time.ZoneOffset.UTC));
            try (ResultSet rs = s.executeQuery()) {
                return collect(rs, metric, columns, range.step());
            }
        }
    }

    /** Rows ordered by series then time into one {@link Series} each; a bucket without a value gives no point. */
    private static List<Series> collect(ResultSet rs, String metric, Map<String, SeriesKind> columns, Duration step)
            throws SQLException {
        var series = new ArrayList<Series>();
        String tagsText = null;
        String column = null;
        var times = new long[16];
        var values = new double[16];
        int size = 0;
        while (rs.next()) {
            String rowTags = rs.getString(2);
            String rowColumn = rs.getString(3);
            if (!rowTags.equals(tagsText) || !rowColumn.equals(column)) {
                if (column != null) {
                    series.add(series(metric, column, tagsText, columns, step, times, values, size));
                }
                tagsText = rowTags;
                column = rowColumn;
                size = 0;
            }
            double value = rs.getDouble(4);
            if (rs.wasNull()) {
                continue;
            }
            if (size == times.length) {
                times = Arrays.copyOf(times, size * 2);
                values = Arrays.copyOf(values, size * 2);
            }
            times[size] = rs.getLong(1);
            values[size] = value;
            size++;
        }
        if (column != null) {
            series.add(series(metric, column, tagsText, columns, step, times, values, size));
        }
        return series;
    }

    private static Series series(String metric, String column, String tags, Map<String, SeriesKind> columns,
            Duration step, long[] times, double[] values, int size) {
        Map<String, String> parsed = new TreeMap<>();
        JSON.readValue(tags, new TypeReference<LinkedHashMap<String, Object>>() {
        }).forEach((name, value) -> parsed.put(name, String.valueOf(value)));
        return new Series(metric, column, Map.copyOf(parsed), columns.get(column), PostgresHistoryReader.STORE, step,
                Arrays.copyOf(times, size), Arrays.copyOf(values, size));
    }

    /** The kind as the SQL tells them apart (the names the API shows). */
    private static String wireName(SeriesKind kind) {
        return switch (kind) {
            case GAUGE -> "gauge";
            case COUNTER -> "rate";
            case DELTA -> "delta";
        };
    }
}
