package io.pgharvest.history.postgres;

import io.pgharvest.window.KeyNumbers;
import io.pgharvest.window.TimeRange;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The whole fleet's key numbers over a range in one statement grouped by {@code dbname}, so the
 * overview costs one read whatever the number of sources (a read per source would be 300 at 300
 * sources). Each part reads one column of one metric table, bounded by the range's time (partition
 * pruning); a table the store never got is left out of the statement (found first with
 * {@code to_regclass}), so a fleet without replication still reads its other numbers.
 *
 * <p>What a number means over a range: the transactions per second are the sum of the positive
 * changes of commits + rollbacks between consecutive collections in the range over their seconds
 * (no change across a reset), as the charts' rate; connections are the mean and the peak of the
 * database's sessions per collection; the size is the last collection's; the lag is the highest.
 */
final class StoredKeyNumbers {

    /** A value per collection: the rows of one collection summed (sessions, size) or their largest (lag). */
    private record Part(String table, String column, String perCollection) {
    }

    private static final List<Part> GAUGES = List.of(new Part("db_stats", "numbackends", "sum"),
            new Part("backends", "total", "sum"), new Part("db_size", "size_b", "sum"),
            new Part("replication", "replay_lag_b", "max"), new Part("wal_receiver", "unreplayed_b", "max"));

    private StoredKeyNumbers() {
    }

    static Map<String, KeyNumbers> read(Connection c, TimeRange range) throws SQLException {
        List<String> present = present(c);
        var parts = new ArrayList<String>();
        if (present.contains("db_stats")) {
            parts.add(TPS);
        }
        for (Part part : GAUGES) {
            if (present.contains(part.table())) {
                parts.add(gauge(part));
            }
        }
        if (parts.isEmpty()) {
            return Map.of();
        }
        Map<String, Map<String, double[]>> found = new TreeMap<>();
        try (PreparedStatement s = c.prepareStatement(String.join("\nUNION ALL\n", parts))) {
            for (int i = 0; i < parts.size(); i++) {
                PostgresHistoryReader.bindRange(s, 1 + 2 * i, range.from(), range.to());
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    found.computeIfAbsent(rs.getString(1), name -> new HashMap<>())
                            .put(rs.getString(2), new double[] {rs.getDouble(3), rs.getDouble(4), rs.getDouble(5)});
                }
            }
        }
        var numbers = new TreeMap<String, KeyNumbers>();
        found.forEach((source, values) -> numbers.put(source, numbers(source, values)));
        return numbers;
    }

    private static KeyNumbers numbers(String source, Map<String, double[]> values) {
        double[] sessions = values.getOrDefault("backends.total", values.get("db_stats.numbackends"));
        double[] lag = values.getOrDefault("replication.replay_lag_b", values.get("wal_receiver.unreplayed_b"));
        double[] tps = values.get("tps");
        double[] size = values.get("db_size.size_b");
        return new KeyNumbers(source, tps == null ? null : tps[0], sessions == null ? null : sessions[0],
                sessions == null ? null : sessions[1], size == null ? null : size[2], lag == null ? null : lag[1], null,
                PostgresHistoryReader.STORE, null);
    }

    private static List<String> present(Connection c) throws SQLException {
        var tables = new ArrayList<String>(List.of("db_stats"));
        GAUGES.forEach(part -> tables.add(part.table()));
        var present = new ArrayList<String>();
        try (PreparedStatement s = c.prepareStatement(
                "SELECT t FROM unnest(?::text[]) t WHERE to_regclass('public.' || quote_ident(t)) IS NOT NULL")) {
            Array names = c.createArrayOf("text", tables.stream().distinct().toArray());
            s.setArray(1, names);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    present.add(rs.getString(1));
                }
            }
        }
        return present;
    }

    /** Per series (dbname and tags) the rate of commits + rollbacks; the series of a database summed. */
    private static final String TPS = """
            SELECT dbname, 'tps', sum(rate), sum(rate), sum(rate) FROM (
                SELECT dbname, sum(change) FILTER (WHERE change >= 0 AND seconds > 0)
                           / nullif(sum(seconds) FILTER (WHERE change >= 0 AND seconds > 0), 0) AS rate
                  FROM (SELECT dbname, tags, v - lag(v) OVER w AS change,
                               extract(epoch FROM time - lag(time) OVER w)::float8 AS seconds
                          FROM (SELECT dbname, coalesce(tag_data, '{}'::jsonb) AS tags, time,
                                       (data ->> 'xact_commit')::float8
                                           + coalesce((data ->> 'xact_rollback')::float8, 0) AS v
                                  FROM public.db_stats
                                 WHERE time >= ? AND time < ? AND jsonb_typeof(data -> 'xact_commit') = 'number') p
                        WINDOW w AS (PARTITION BY dbname, tags ORDER BY time)) pairs
                 GROUP BY dbname, tags) rates
             GROUP BY dbname""";

    /** Mean, peak and last of one column's value per collection. */
    private static String gauge(Part part) {
        return """
                SELECT dbname, '%1$s.%2$s', avg(v), max(v), (array_agg(v ORDER BY time DESC))[1] FROM (
                    SELECT dbname, time, %3$s((data ->> '%2$s')::float8) AS v FROM %4$s
                     WHERE time >= ? AND time < ? AND jsonb_typeof(data -> '%2$s') = 'number'
                     GROUP BY dbname, time) per_collection
                 GROUP BY dbname""".formatted(part.table(), part.column(), part.perCollection(),
                PostgresHistoryReader.table(part.table()));
    }
}
