package io.pgharvest.history.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pgharvest.history.FleetHistory;
import io.pgharvest.history.HistoryReader;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.postgres.PostgresSink;
import io.pgharvest.sink.postgres.PostgresSinkProperties;
import io.pgharvest.sink.postgres.SinkPoolThreads;
import io.pgharvest.testsupport.TestPostgres;
import io.pgharvest.window.ChartedColumns;
import io.pgharvest.window.Series;
import io.pgharvest.window.SeriesKind;
import io.pgharvest.window.Statement;
import io.pgharvest.window.TimeRange;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The postgres reader over seven days of a 50-source fleet written through the real postgres sink
 * with back-dated collection times (db_stats, backends and query_stats every 60 s): the 7-day
 * charts and the 7-day top statements equal hand-written SQL over the same rows, written another
 * way (a bucket's rate as its last counter value minus the last one before it), source by source.
 */
class PostgresHistoryReaderTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final String DB = "history_reader_" + ProcessHandle.current().pid();
    private static final int SOURCES = 50;
    private static final Duration DAYS = Duration.ofDays(7);
    private static final Instant END = Instant.now().truncatedTo(ChronoUnit.HOURS);
    private static final Instant START = END.minus(DAYS);
    private static final List<String> NAMES = IntStream.range(0, SOURCES).mapToObj(i -> "fleet-" + i).toList();

    private static HistoryReader reader;

    @BeforeAll
    static void sevenDaysOfAFleet() throws Exception {
        PG.createDatabase(DB);
        try (var threads = new SinkPoolThreads()) {
            PostgresSink sink = PostgresSink.create("pgharvest.sinks[0]", "history-test",
                    PostgresSinkProperties.of(PG.connStr(DB)).withRetention(Duration.ofDays(30)), threads,
                    Clock.systemUTC());
            try {
                var fleet = new FleetHistory(NAMES);
                var batch = new ArrayList<Measurement>();
                long minutes = DAYS.toMinutes();
                for (long m = 0; m < minutes; m++) {
                    batch.addAll(fleet.minute(m, START.plus(Duration.ofMinutes(m))));
                    if (batch.size() >= 6_000 || m == minutes - 1) {
                        sink.write(batch);
                        batch.clear();
                    }
                }
            } finally {
                sink.close();
            }
        }
        reader = new PostgresHistoryPlugin().create("test", new PostgresHistorySettings(PG.connStr(DB), null, null,
                null, null, Duration.ofDays(30)));
    }

    @AfterAll
    static void close() {
        if (reader != null) {
            reader.close();
        }
    }

    @Test
    void sevenDayChartsEqualHandWrittenSqlSourceBySource() throws Exception {
        var range = TimeRange.of(START, END);
        assertThat(range.step()).isEqualTo(Duration.ofMinutes(30));
        for (String source : List.of("fleet-0", "fleet-1", "fleet-17", "fleet-49")) {
            List<Series> dbStats = reader.series(source, range, "db_stats", ChartedColumns.of("db_stats"), Map.of());
            Series commits = only(dbStats, "xact_commit");
            assertThat(commits.kind()).isEqualTo(SeriesKind.COUNTER);
            assertThat(commits.store()).isEqualTo("postgres");
            assertThat(commits.step()).isEqualTo(Duration.ofMinutes(30));
            assertThat(commits.times()).hasSize(336);
            assertClose(commits, handRates(source, "db_stats", "xact_commit"));
            assertClose(only(dbStats, "numbackends"), handMeans(source, "db_stats", "numbackends"));
            List<Series> backends = reader.series(source, range, "backends", ChartedColumns.of("backends"), Map.of());
            assertClose(only(backends, "total"), handMeans(source, "backends", "total"));
            assertClose(only(backends, "active"), handMeans(source, "backends", "active"));
        }
    }

    @Test
    void aSourcesChartHoldsOnlyItsOwnRowsAndAMetricNeverStoredReadsAsNothing() throws Exception {
        var range = TimeRange.of(END.minus(Duration.ofHours(6)), END);
        // fleet-1's rate is twice fleet-0's at every minute, fleet-10's eleven times: a mixed read would not be.
        double[] zero = only(reader.series("fleet-0", range, "db_stats", ChartedColumns.of("db_stats"), Map.of()),
                "xact_commit").values();
        double[] ten = only(reader.series("fleet-10", range, "db_stats", ChartedColumns.of("db_stats"), Map.of()),
                "xact_commit").values();
        assertThat(zero).hasSize(360);
        for (int i = 0; i < zero.length; i++) {
            assertThat(ten[i]).isCloseTo(zero[i] * 11, within(1e-6));
        }
        assertThat(reader.series("fleet-0", range, "wal", ChartedColumns.of("wal"), Map.of())).isEmpty();
        assertThat(reader.series("nobody", range, "db_stats", ChartedColumns.of("db_stats"), Map.of())).isEmpty();
    }

    @Test
    void sevenDayTopStatementsAreTheSumsOfTheStoredDeltasWithOtherAndApproximateKept() throws Exception {
        var range = TimeRange.of(START, END);
        for (String source : List.of("fleet-0", "fleet-33")) {
            List<Statement> top = reader.statements(source, range, 200);
            Map<String, double[]> hand = handStatements(source);
            assertThat(top).extracting(Statement::queryid).containsExactlyElementsOf(hand.keySet());
            for (Statement statement : top) {
                double[] sums = hand.get(statement.queryid());
                assertThat(statement.calls()).isEqualTo(sums[0]);
                assertThat(statement.totalExecTime()).isCloseTo(sums[1], within(1e-6 * sums[1]));
                assertThat(statement.rows()).isEqualTo(sums[2]);
                assertThat(statement.sharedBlksRead()).isEqualTo(sums[3]);
                assertThat(statement.approximate()).isEqualTo(sums[4] > 0);
                assertThat(statement.dbname()).isEqualTo("app");
            }
            assertThat(top).extracting(Statement::queryid).contains("other");
        }
        // Only fleet-0's one interval was marked approximate.
        assertThat(reader.statements("fleet-0", range, 200)).filteredOn(Statement::approximate)
                .extracting(Statement::queryid).containsExactly(FleetHistory.STATEMENT);
        assertThat(reader.statements("fleet-33", range, 200)).noneMatch(Statement::approximate);
        // One statement's 7-day series: its calls per bucket.
        List<Series> calls = reader.series("fleet-33", range, ChartedColumns.QUERY_STATS,
                ChartedColumns.of(ChartedColumns.QUERY_STATS), Map.of("queryid", FleetHistory.STATEMENT));
        Series perBucket = only(calls, "calls");
        assertThat(perBucket.tags()).containsEntry("queryid", FleetHistory.STATEMENT);
        assertThat(perBucket.kind()).isEqualTo(SeriesKind.DELTA);
        assertThat(java.util.Arrays.stream(perBucket.values()).sum()).isEqualTo(handStatements("fleet-33")
                .get(FleetHistory.STATEMENT)[0]);
    }

    @Test
    void theFleetsKeyNumbersOverFiveDaysAreOneReadEqualToHandWrittenSqlForEverySource() throws Exception {
        var range = TimeRange.of(START.plus(Duration.ofDays(2)), END);
        Map<String, io.pgharvest.window.KeyNumbers> fleet = reader.keyNumbers(range);
        Map<String, double[]> hand = handKeyNumbers(range);
        assertThat(fleet.keySet()).containsExactlyInAnyOrderElementsOf(NAMES).isEqualTo(hand.keySet());
        for (String source : NAMES) {
            var numbers = fleet.get(source);
            double[] expected = hand.get(source);
            assertThat(numbers.store()).isEqualTo("postgres");
            assertThat(numbers.error()).isNull();
            assertThat(numbers.tps()).as(source + " tps").isCloseTo(expected[0], within(1e-9 * expected[0]));
            assertThat(numbers.connections()).as(source + " mean sessions").isCloseTo(expected[1], within(1e-9));
            assertThat(numbers.connectionsMax()).as(source + " peak sessions").isEqualTo(expected[2]);
            // The fleet collects neither db_size nor replication: no number, not a zero.
            assertThat(numbers.sizeBytes()).isNull();
            assertThat(numbers.lagBytes()).isNull();
        }
        // fleet-10 commits eleven times what fleet-0 does: a mixed-up grouping would not.
        assertThat(fleet.get("fleet-10").tps()).isGreaterThan(10 * fleet.get("fleet-0").tps());
    }

    /**
     * Written another way than the reader: a counter without resets, so the range's rate is its last
     * value less its first over their seconds; sessions straight from the rows.
     */
    private static Map<String, double[]> handKeyNumbers(TimeRange range) throws SQLException {
        var found = new java.util.TreeMap<String, double[]>();
        String sql = """
                SELECT d.dbname, (d.last_v - d.first_v) / extract(epoch FROM d.last - d.first)::float8, b.mean, b.peak
                  FROM (SELECT DISTINCT dbname,
                               last_value(v) OVER w AS last_v, first_value(v) OVER w AS first_v,
                               last_value(time) OVER w AS last, first_value(time) OVER w AS first
                          FROM (SELECT dbname, time,
                                       (data ->> 'xact_commit')::float8 + (data ->> 'xact_rollback')::float8 AS v
                                  FROM public.db_stats WHERE time >= ? AND time < ?) r
                        WINDOW w AS (PARTITION BY dbname ORDER BY time
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) d
                  JOIN (SELECT dbname, avg((data ->> 'total')::float8) AS mean, max((data ->> 'total')::float8) AS peak
                          FROM public.backends WHERE time >= ? AND time < ? GROUP BY dbname) b USING (dbname)
                """;
        try (Connection c = PG.connect(DB); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 1; i <= 4; i += 2) {
                s.setObject(i, OffsetDateTime.ofInstant(range.from(), ZoneOffset.UTC));
                s.setObject(i + 1, OffsetDateTime.ofInstant(range.to(), ZoneOffset.UTC));
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    found.put(rs.getString(1), new double[] {rs.getDouble(2), rs.getDouble(3), rs.getDouble(4)});
                }
            }
        }
        return found;
    }

    private static Series only(List<Series> series, String column) {
        List<Series> found = series.stream().filter(s -> s.column().equals(column)).toList();
        assertThat(found).as(column).hasSize(1);
        return found.getFirst();
    }

    private static void assertClose(Series series, Map<Long, Double> expected) {
        var actual = new LinkedHashMap<Long, Double>();
        for (int i = 0; i < series.times().length; i++) {
            actual.put(series.times()[i], series.values()[i]);
        }
        assertThat(actual.keySet()).as(series.column()).containsExactlyElementsOf(expected.keySet());
        expected.forEach((time, value) -> assertThat(actual.get(time)).as(series.column() + " at " + time)
                .isCloseTo(value, within(1e-9 * Math.max(1, Math.abs(value)))));
    }

    /** A bucket's rate: its last value minus the last value before it (or its first), over their seconds. */
    private static Map<Long, Double> handRates(String source, String metric, String column) throws SQLException {
        return query("""
                WITH rows AS (SELECT time, (data ->> '%2$s')::float8 AS v FROM public.%1$s
                               WHERE dbname = ? AND time >= ? AND time < ?),
                     buckets AS (SELECT date_bin('30 minutes', time, TIMESTAMPTZ '1970-01-01 00:00:00+00') AS bucket,
                                        min(time) AS first, max(time) AS last FROM rows GROUP BY 1)
                SELECT (extract(epoch FROM b.bucket) * 1000)::int8,
                       (l.v - coalesce(p.v, f.v)) / extract(epoch FROM l.time - coalesce(p.time, f.time))::float8
                  FROM buckets b
                  JOIN rows l ON l.time = b.last
                  JOIN rows f ON f.time = b.first
                  LEFT JOIN LATERAL (SELECT r.time, r.v FROM rows r WHERE r.time < b.bucket
                                      ORDER BY r.time DESC LIMIT 1) p ON true
                 ORDER BY 1
                """.formatted(metric, column), source);
    }

    private static Map<Long, Double> handMeans(String source, String metric, String column) throws SQLException {
        return query("""
                SELECT (extract(epoch FROM date_bin('30 minutes', time, TIMESTAMPTZ '1970-01-01 00:00:00+00')) * 1000)::int8,
                       avg((data ->> '%2$s')::float8)
                  FROM public.%1$s WHERE dbname = ? AND time >= ? AND time < ? GROUP BY 1 ORDER BY 1
                """.formatted(metric, column), source);
    }

    private static Map<Long, Double> query(String sql, String source) throws SQLException {
        var found = new LinkedHashMap<Long, Double>();
        try (Connection c = PG.connect(DB); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, source);
            s.setObject(2, OffsetDateTime.ofInstant(START, ZoneOffset.UTC));
            s.setObject(3, OffsetDateTime.ofInstant(END, ZoneOffset.UTC));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    found.put(rs.getLong(1), rs.getDouble(2));
                }
            }
        }
        return found;
    }

    /** Query id to calls, execution time, rows, blocks read and approximate intervals, most time first. */
    private static Map<String, double[]> handStatements(String source) throws SQLException {
        var found = new LinkedHashMap<String, double[]>();
        try (Connection c = PG.connect(DB); PreparedStatement s = c.prepareStatement("""
                SELECT tag_data ->> 'queryid', sum((data ->> 'calls')::numeric), sum((data ->> 'total_exec_time')::numeric),
                       sum((data ->> 'rows')::numeric), sum((data ->> 'shared_blks_read')::numeric),
                       count(*) FILTER (WHERE data ->> 'approximate' = 'true')
                  FROM public.query_stats WHERE dbname = ? AND time >= ? AND time < ?
                 GROUP BY 1 ORDER BY 3 DESC, 1
                """)) {
            s.setString(1, source);
            s.setObject(2, OffsetDateTime.ofInstant(START, ZoneOffset.UTC));
            s.setObject(3, OffsetDateTime.ofInstant(END, ZoneOffset.UTC));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    found.put(rs.getString(1), new double[] {rs.getDouble(2), rs.getDouble(3), rs.getDouble(4),
                            rs.getDouble(5), rs.getDouble(6)});
                }
            }
        }
        return found;
    }
}
