package io.pgharvest.sink.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.RowTags;
import io.pgharvest.sink.SinkRejectedException;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PostgresSinkTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final SinkPoolThreads THREADS = new SinkPoolThreads();
    private static int databases;

    private final List<PostgresSink> sinks = new ArrayList<>();
    private String database;

    @BeforeAll
    static void server() {
        PG.createDatabase("postgres_sink_probe");
    }

    @AfterAll
    static void threads() {
        THREADS.close();
    }

    @AfterEach
    void closeSinks() {
        sinks.forEach(PostgresSink::close);
    }

    @Test
    void eachRowKeepsItsOwnTagNamesWhenResultsShareOrSwapThem() throws Exception {
        PostgresSink sink = sink(Duration.ofDays(14));
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        // The encoder encodes a result's shared tag names once: a second result with names of
        // the same count in another order, a third with other names, and a row with its own names
        // array (as a row with a NULL tag gets) must each still get their own names.
        String[] first = {"datname", "relname"};
        String[] swapped = {"relname", "datname"};
        String[] other = {"schema", "weird\u0000name"};
        sink.write(List.of(
                measurement("a", now, row(1, RowTags.sharingNames(first, new String[] {"shop", "orders"})),
                        row(2, RowTags.sharingNames(first, new String[] {"shop", "items"}))),
                measurement("b", now, row(3, RowTags.sharingNames(swapped, new String[] {"carts", "shop"}))),
                measurement("c", now, row(4, RowTags.sharingNames(other, new String[] {"public", "x"})),
                        row(5, RowTags.of(new String[] {"datname"}, new String[] {"shop"}, 1)))));

        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT data->>'n' || ' ' || coalesce(tag_data::text, 'NULL') FROM public.tagged "
                    + "ORDER BY (data->>'n')::int")).containsExactly(
                            "1 {\"datname\": \"shop\", \"relname\": \"orders\"}",
                            "2 {\"datname\": \"shop\", \"relname\": \"items\"}",
                            "3 {\"datname\": \"shop\", \"relname\": \"carts\"}",
                            "4 {\"schema\": \"public\", \"weird\ufffdname\": \"x\"}",
                            "5 {\"datname\": \"shop\"}");
        }
    }

    private static Measurement measurement(String source, Instant time, Measurement.Row... rows) {
        return new Measurement(source, "tagged", time, List.of(rows), Map.of());
    }

    private static Measurement.Row row(int n, RowTags tags) {
        return new Measurement.Row(Map.of("n", n), tags);
    }

    @Test
    void rowsLandInTimePartitionedMetricTablesWithPgwatchColumns() throws Exception {
        PostgresSink sink = sink(Duration.ofDays(14));
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        var values = new LinkedHashMap<String, Object>();
        values.put("xact_commit", 1234L);
        values.put("ratio", 0.5);
        values.put("datname", "shop");
        sink.write(List.of(
                new Measurement("db-one", "db_stats", now,
                        List.of(new Measurement.Row(values, Map.of("datname", "shop"))), Map.of("env", "prod")),
                new Measurement("db-two", "db_stats", now, List.of(new Measurement.Row(Map.of("xact_commit", 7), null)),
                        Map.of()),
                new Measurement("db-one", "instance_up", now,
                        List.of(new Measurement.Row(Map.of("instance_up", 1), null)), Map.of())));

        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT time, data::text, tag_data::text FROM public.db_stats "
                    + "WHERE dbname = 'db-one'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getTimestamp(1).toInstant()).isEqualTo(now);
                assertThat(rs.getString(2)).isEqualTo("{\"ratio\": 0.5, \"datname\": \"shop\", \"xact_commit\": 1234}");
                assertThat(rs.getString(3)).isEqualTo("{\"env\": \"prod\", \"datname\": \"shop\"}");
                assertThat(rs.next()).isFalse();
            }
            assertThat(rows(s, "SELECT tag_data IS NULL FROM public.db_stats WHERE dbname = 'db-two'"))
                    .containsExactly("t");
            assertThat(rows(s, "SELECT data->>'instance_up' FROM public.instance_up")).containsExactly("1");
            assertThat(rows(s, "SELECT relkind::text || ' ' || pg_get_partkeydef(oid) FROM pg_class "
                    + "WHERE oid = 'public.db_stats'::regclass")).containsExactly("p RANGE (\"time\")");
            assertThat(rows(s, "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' "
                    + "ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'public.db_stats'::regclass AND attnum > 0"))
                    .containsExactly("time timestamp with time zone, dbname text, data jsonb, tag_data jsonb");
            String today = PartitionLayout.boundLiteral(now.truncatedTo(ChronoUnit.DAYS)).substring(0, 10)
                    .replace("-", "");
            assertThat(rows(s, "SELECT partition FROM admin.metric_time_partitions WHERE metric = 'db_stats' "
                    + "ORDER BY range_start")).hasSize(3).first().isEqualTo("db_stats_" + today);
            assertThat(rows(s, "SELECT count(*) FROM subpartitions.db_stats_" + today)).containsExactly("2");
            assertThat(rows(s, "SELECT dbname || '/' || metric FROM admin.all_distinct_dbname_metrics ORDER BY 1"))
                    .containsExactly("db-one/db_stats", "db-one/instance_up", "db-two/db_stats");
            assertThat(rows(s, "SELECT table_name FROM admin.get_top_level_metric_tables()"))
                    .containsExactly("db_stats", "instance_up");
            assertThat(rows(s, "SELECT schema_type FROM admin.storage_schema_type")).containsExactly("postgres");
        }
    }

    @Test
    void wholeNumbersAreWrittenWithoutAFractionSoThatDashboardsCanCastThemToInt8() throws Exception {
        PostgresSink sink = sink(Duration.ofDays(14));
        var values = new LinkedHashMap<String, Object>();
        values.put("whole_double", 150018.0);
        values.put("hundred", 100.0f);
        values.put("whole_numeric", new java.math.BigDecimal("100.00"));
        values.put("big_numeric", new java.math.BigDecimal("1E+3"));
        values.put("ratio", 0.25);
        values.put("tiny", 1.5e-7);
        values.put("huge", 1e21);
        sink.write(List.of(new Measurement("db-one", "numbers", Instant.now(),
                List.of(new Measurement.Row(values, null)), Map.of())));

        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT (data->>'whole_double')::int8 || ' ' || (data->>'hundred')::int8 || ' '"
                    + " || (data->>'whole_numeric')::int8 || ' ' || (data->>'big_numeric')::int8 FROM public.numbers"))
                    .containsExactly("150018 100 100 1000");
            assertThat(rows(s, "SELECT data->>'ratio' || ' ' || (data->>'tiny') || ' ' || (data->>'huge')"
                    + " FROM public.numbers")).containsExactly("0.25 0.00000015 1000000000000000000000");
        }
    }

    @Test
    void nanAndInfinityAreStoredAsNullWithoutFailingTheBatch() throws Exception {
        PostgresSink sink = sink(Duration.ofDays(14));
        var values = new LinkedHashMap<String, Object>();
        values.put("nan", Double.NaN);
        values.put("inf", Double.POSITIVE_INFINITY);
        values.put("fine", 2.5);
        values.put("text", "back\\slash\ttab\nnewline \"quoted\" \u0000nul");
        sink.write(List.of(new Measurement("src", "odd_values", Instant.now(),
                List.of(new Measurement.Row(values, null)), Map.of())));

        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT data::text FROM public.odd_values")).containsExactly(
                    "{\"inf\": null, \"nan\": null, \"fine\": 2.5, "
                            + "\"text\": \"back\\\\slash\\ttab\\nnewline \\\"quoted\\\" \uFFFDnul\"}");
        }
    }

    @Test
    void dataTheDatabaseRejectsIsIsolatedAndTheRestOfTheBatchIsStored() throws Exception {
        PostgresSink sink = sink(Duration.ofDays(14));
        Instant now = Instant.now();
        var good = new Measurement("src", "good_metric", now, List.of(new Measurement.Row(Map.of("v", 1), null)),
                Map.of());
        var outOfRange = new Measurement("src", "good_metric", Instant.parse("+295000-01-01T00:00:00Z"),
                List.of(new Measurement.Row(Map.of("v", 2), null)), Map.of());
        var alsoGood = new Measurement("src2", "other_metric", now,
                List.of(new Measurement.Row(Map.of("v", 3), null)), Map.of());

        assertThatThrownBy(() -> sink.write(List.of(good, outOfRange, alsoGood)))
                .isInstanceOfSatisfying(SinkRejectedException.class,
                        e -> assertThat(e.rejected()).containsExactly(outOfRange))
                .hasMessageContaining("rejected 1 measurements, first of source src, metric good_metric");

        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT data->>'v' FROM public.good_metric")).containsExactly("1");
            assertThat(rows(s, "SELECT data->>'v' FROM public.other_metric")).containsExactly("3");
        }
    }

    @Test
    void retentionDropsPartitionsPastTheHorizonAndTheListingFollows() throws Exception {
        PostgresSink sink = sink(Duration.ofDays(15));
        Instant now = Instant.now();
        sink.write(List.of(
                measurement("old-source", "retained", now.minus(Duration.ofDays(30))),
                measurement("recent-source", "retained", now.minus(Duration.ofDays(10))),
                measurement("recent-source", "retained", now)));
        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT count(*) FROM admin.metric_time_partitions")).containsExactly("5");

            PartitionMaintenance.Result result = maintenance(sink, Duration.ofDays(15)).runOnce();

            String old = PartitionLayout.boundLiteral(new PartitionLayout(Duration.ofDays(1))
                    .start(now.minus(Duration.ofDays(30)))).substring(0, 10).replace("-", "");
            assertThat(result.droppedPartitions()).containsExactly("retained_" + old);
            assertThat(rows(s, "SELECT count(*) FROM admin.metric_time_partitions")).containsExactly("4");
            assertThat(rows(s, "SELECT DISTINCT dbname FROM public.retained")).containsExactly("recent-source");
            assertThat(rows(s, "SELECT dbname FROM admin.all_distinct_dbname_metrics WHERE metric = 'retained'"))
                    .containsExactly("recent-source");
        }
    }

    @Test
    void maintenanceCreatesPartitionsAheadOfTime() throws Exception {
        PostgresSink sink = sink(Duration.ofDays(14));
        Instant now = Instant.now();
        sink.write(List.of(measurement("src", "ahead", now)));
        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            s.execute("DROP TABLE subpartitions." + new PartitionLayout(Duration.ofDays(1))
                    .partitionName("ahead", new PartitionLayout(Duration.ofDays(1)).start(now).plus(Duration.ofDays(2))));
            assertThat(rows(s, "SELECT count(*) FROM admin.metric_time_partitions")).containsExactly("2");

            PartitionMaintenance.Result result = maintenance(sink, Duration.ofDays(14)).runOnce();

            assertThat(result.createdPartitions()).isEqualTo(1);
            assertThat(rows(s, "SELECT range_end - range_start FROM admin.metric_time_partitions"))
                    .containsOnly("1 day").hasSize(3);
        }
    }

    @Test
    void severalInstancesMaintainOneStorageDatabaseOnceAndTheNextTakesOverWhenTheMaintainerStops()
            throws Exception {
        PostgresSink sink = sink(Duration.ofDays(14));
        sink.write(List.of(measurement("src", "fleet_maintained", Instant.now())));
        PartitionMaintenance first = maintenance(sink, Duration.ofDays(14));
        PartitionMaintenance second = maintenance(sink, Duration.ofDays(14));
        try {
            assertThat(first.runIfMaintainer()).isNotNull();
            assertThat(second.runIfMaintainer()).isNull();
            assertThat(first.runIfMaintainer()).isNotNull();

            first.stop();

            assertThat(second.runIfMaintainer()).isNotNull();
            assertThat(first.runIfMaintainer()).isNull();
        } finally {
            first.stop();
            second.stop();
        }
    }

    @Test
    void aPartitionDroppedUnderneathIsRecreatedOnTheRetry() throws Exception {
        PostgresSink sink = sink(Duration.ofDays(14));
        Instant now = Instant.now();
        sink.write(List.of(measurement("src", "dropped_under", now)));
        String partition = new PartitionLayout(Duration.ofDays(1))
                .partitionName("dropped_under", new PartitionLayout(Duration.ofDays(1)).start(now));
        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            s.execute("DROP TABLE subpartitions." + partition);
        }

        assertThatThrownBy(() -> sink.write(List.of(measurement("src", "dropped_under", now))))
                .isInstanceOf(SQLException.class).hasMessageContaining("no partition");
        sink.write(List.of(measurement("src", "dropped_under", now)));

        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT count(*) FROM subpartitions." + partition)).containsExactly("1");
        }
    }

    @Test
    void urlsInEitherFormReachTheDatabaseAndBadOnesNameTheProperty() throws Exception {
        newDatabase();
        for (String url : List.of(PG.connStr(database), PG.jdbcUrl(database))) {
            PostgresSink sink = PostgresSink.create("pgharvest.sinks[0]", "pg", settings(url, Duration.ofDays(1)), THREADS,
                    Clock.systemUTC());
            sinks.add(sink);
            sink.write(List.of(measurement("src", "either_url", Instant.now())));
        }
        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT count(*) FROM public.either_url")).containsExactly("2");
        }
        assertThatThrownBy(() -> PostgresSink.create("pgharvest.sinks[3]", "pg",
                settings("postgresql://user:s3cret@host:notaport/db", Duration.ofDays(1)), THREADS, Clock.systemUTC()))
                .hasMessageStartingWith("pgharvest.sinks[3].url: ")
                .message().doesNotContain("s3cret");
    }

    private PostgresSink sink(Duration retention) {
        newDatabase();
        PostgresSink sink = PostgresSink.create("pgharvest.sinks[0]", "pg", settings(PG.connStr(database), retention),
                THREADS, Clock.systemUTC());
        sinks.add(sink);
        return sink;
    }

    private void newDatabase() {
        database = "sink_pg_" + (++databases) + "_" + Long.toHexString(System.nanoTime());
        PG.createDatabase(database);
    }

    /** A second maintenance on the sink's database, driven by the test instead of the schedule. */
    private PartitionMaintenance maintenance(PostgresSink sink, Duration retention) {
        var ds = new org.postgresql.ds.PGSimpleDataSource();
        ds.setUrl(PG.jdbcUrl(database));
        var layout = new PartitionLayout(Duration.ofDays(1));
        return new PartitionMaintenance("test", ds, sink::ensureSchema, new MetricTables(layout, 2), retention,
                Duration.ofHours(1), Clock.systemUTC());
    }

    private static PostgresSinkProperties settings(String url, Duration retention) {
        return PostgresSinkProperties.of(url).withRetention(retention);
    }

    private static Measurement measurement(String source, String metric, Instant time) {
        return new Measurement(source, metric, time, List.of(new Measurement.Row(Map.of("v", 1), null)), Map.of());
    }

    private static List<String> rows(Statement s, String sql) throws SQLException {
        var result = new ArrayList<String>();
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                result.add(rs.getString(1));
            }
        }
        return result;
    }

    @Test
    void theOperatorsTagWinsOverARowsTagColumnOfTheSameName() throws Exception {
        PostgresSink sink = sink(Duration.ofDays(14));
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        sink.write(List.of(new Measurement("src", "tag_rule", now, List.of(new Measurement.Row(Map.of("n", 1),
                RowTags.sharingNames(new String[] {"job", "datname"}, new String[] {"from-the-row", "shop"}))),
                Map.of("job", "operator"))));

        try (Connection c = PG.connect(database); Statement s = c.createStatement()) {
            assertThat(rows(s, "SELECT tag_data->>'job' || ' ' || (tag_data->>'datname') FROM public.tag_rule"))
                    .containsExactly("operator shop");
        }
    }
}
