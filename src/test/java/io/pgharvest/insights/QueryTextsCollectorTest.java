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
            var collector = new QueryTextsCollector(Duration.ofSeconds(30));
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
        assertThat(MetricSql.problemOfNativeQuery(extension.textsSql())).isEmpty();
        assertThat(MetricSql.problemOfNativeQuery(extension.statisticsSql(false))).isEmpty();
    }

    private static List<String> texts(List<Measurement.Row> rows) {
        return rows.stream().map(r -> (String) r.values().get("query")).toList();
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
