package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.sql.MetricSql;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.testsupport.JdbcSqlReader;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * query_texts on a real server: a statement's normalized text is delivered once, on the first read
 * after it appears, not again on later reads; a statement first run later is delivered on the read
 * after it; an id that was gone at a read (reset, evicted) is sent again when it comes back; the
 * queries pass the native-query boundary.
 */
class QueryTextsCollectorTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "insights_texts";

    @BeforeAll
    static void createDatabase() {
        pg.createDatabase(DB);
        pg.execute(DB, "create extension if not exists pg_stat_statements");
    }

    @Test
    void eachTextIsDeliveredOnceAndANewOneOnTheReadAfterItAppears() throws Exception {
        try (Connection work = pg.connect(DB); Connection monitor = pg.connect(DB)) {
            run(work, "select 17 as texts_probe_one");
            // The workload and the collector are one role here: its statements count only when asked for.
            var collector = new QueryTextsCollector(Duration.ofSeconds(30), true);
            List<Measurement.Row> first = collector.collect(target(monitor));
            assertThat(texts(first)).contains("select $1 as texts_probe_one");
            assertThat(first).allSatisfy(r -> assertThat(r.tags()).containsEntry("dbname", DB).containsKey("queryid"));

            run(work, "select 18 as texts_probe_one");
            run(work, "select 'secret' as texts_probe_two");
            List<Measurement.Row> second = collector.collect(target(monitor));
            assertThat(texts(second)).contains("select $1 as texts_probe_two")
                    .doesNotContain("select $1 as texts_probe_one");
            assertThat(texts(collector.collect(target(monitor)))).noneMatch(t -> t.contains("texts_probe"));
            assertThat(collector.knownIds()).isPositive();

            // Back after a reset with the same text: known, not sent again.
            pg.execute(DB, "select pg_stat_statements_reset()");
            run(work, "select 19 as texts_probe_one");
            assertThat(texts(collector.collect(target(monitor)))).noneMatch(t -> t.contains("texts_probe"));
            // Gone at a read (reset, or evicted), then back: forgotten in between, so sent again.
            pg.execute(DB, "select pg_stat_statements_reset()");
            collector.collect(target(monitor));
            run(work, "select 20 as texts_probe_one");
            assertThat(texts(collector.collect(target(monitor)))).contains("select $1 as texts_probe_one");
        }
    }

    @Test
    void theTextsQueryIsANativeQueryTheEngineSends() {
        var extension = new StatementsExtension("public", "1.11", List.of(), true);
        assertThat(MetricSql.problemOfNativeQuery(extension.textsSql(false))).isEmpty();
        assertThat(MetricSql.problemOfNativeQuery(extension.textsSql(true))).isEmpty();
        assertThat(MetricSql.problemOfNativeQuery(extension.statisticsSql(false, false))).isEmpty();
        assertThat(MetricSql.problemOfNativeQuery(extension.statisticsSql(false, true))).isEmpty();
    }

    private static List<String> texts(List<Measurement.Row> rows) {
        return rows.stream().map(r -> (String) r.values().get("query")).toList();
    }

    @Test
    void theTextsOfStatementsOnlyTheMonitoringRoleRanAreLeftOutUnlessAskedFor() throws Exception {
        pg.execute(DB, "do $$ begin if not exists (select from pg_roles where rolname = 'texts_monitor')"
                + " then create role texts_monitor login in role pg_monitor; end if; end $$");
        try (Connection work = pg.connect(DB); Connection monitor = java.sql.DriverManager.getConnection(
                pg.jdbcUrl(DB).replace("user=postgres", "user=texts_monitor"))) {
            // Shapes of their own: column names are not part of a query id, so "select 1 as a" and
            // "select 2 as b" would share one id (and one text) with the other test's probes.
            run(monitor, "select 21::int8 * 3 as texts_own_probe");
            run(work, "select 22::int8 - 4 as texts_app_probe");
            List<String> byDefault = texts(new QueryTextsCollector(Duration.ofSeconds(30)).collect(target(monitor)));
            assertThat(byDefault).contains("select $1::int8 - $2 as texts_app_probe")
                    .noneMatch(t -> t.contains("texts_own_probe"));
            List<String> withOwn = texts(new QueryTextsCollector(Duration.ofSeconds(30), true).collect(target(monitor)));
            assertThat(withOwn).contains("select $1::int8 - $2 as texts_app_probe", "select $1::int8 * $2 as texts_own_probe");
        }
    }

    private static void run(Connection connection, String sql) throws Exception {
        try (Statement st = connection.createStatement()) {
            st.executeQuery(sql).close();
        }
    }

    private static NativeTarget target(Connection connection) {
        return new NativeTarget("test", DB, pg.majorVersion(), ":0", true, new JdbcSqlReader(connection),
                Duration.ofSeconds(600), Instant.now(), null);
    }
}
