package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.GenericPlans;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.SourceShelf;
import io.pgharvest.testsupport.JdbcSqlReader;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A statement new to query_stats' top gets its text on the read that first ranks it, not at
 * query_texts' next turn 10 minutes later: query_stats (every 60 s) delivers the texts query_texts
 * does not know under query_texts' storage name, on a real server, with the collectors sharing one
 * source's shelf as the engine runs them (query_stats, then query_texts, on the first tick). Known
 * texts are not read again, and a source that no longer runs query_texts gets none this way.
 */
class TextsOnFirstReadTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "insights_texts_first";
    private static final Duration STATS_EVERY = Duration.ofSeconds(60);
    private static final Duration TEXTS_EVERY = Duration.ofSeconds(600);

    @BeforeAll
    static void createDatabase() {
        pg.createDatabase(DB);
        pg.execute(DB, "create extension if not exists pg_stat_statements");
    }

    @Test
    void aNewSourcesStatementsHaveTheirTextsWithinItsFirstTwoReads() throws Exception {
        try (Connection work = pg.connect(DB); Connection monitor = pg.connect(DB)) {
            var shelf = new SourceShelf();
            // The workload and the collectors are one role here: their statements count only when asked for.
            var stats = new QueryStatsCollector(50, true);
            var texts = new QueryTextsCollector(Duration.ofSeconds(30), true);
            Instant t0 = Instant.parse("2026-01-01T00:00:00Z");

            // First tick of the new source: query_stats' baseline, then query_texts' first turn.
            run(work, "select 31::int8 + 1 as first_minute_old");
            assertThat(stats.collectByName(target(monitor, shelf, t0, STATS_EVERY), "query_stats"))
                    .containsOnlyKeys("query_stats");
            assertThat(queries(texts.collectByName(target(monitor, shelf, t0, TEXTS_EVERY), "query_texts")
                    .get("query_texts"))).contains("select $1::int8 + $2 as first_minute_old");

            // Statements first run after query_texts' turn: the second read of query_stats brings their texts.
            run(work, "select 32::int8 * 2 as first_minute_new");
            run(work, "select 33::int8 * 2 as first_minute_new");
            Map<String, List<Measurement.Row>> second = stats.collectByName(
                    target(monitor, shelf, t0.plus(STATS_EVERY), STATS_EVERY), "query_stats");
            assertThat(second).containsKeys("query_stats", "query_texts");
            assertThat(queries(second.get("query_texts"))).contains("select $1::int8 * $2 as first_minute_new")
                    .doesNotContain("select $1::int8 + $2 as first_minute_old");
            assertThat(second.get("query_texts")).allSatisfy(r -> assertThat(r.tags()).containsEntry("dbname", DB));

            // Nothing new on top: no texts read, none delivered.
            run(work, "select 34::int8 * 2 as first_minute_new");
            assertThat(stats.collectByName(target(monitor, shelf, t0.plus(STATS_EVERY.multipliedBy(2)), STATS_EVERY),
                    "query_stats")).containsOnlyKeys("query_stats");

            // query_texts no longer collected (it did not run for two of its intervals): no texts with query_stats.
            run(work, "select 35::int8 - 1 as first_minute_late");
            Instant muchLater = t0.plus(TEXTS_EVERY.multipliedBy(2)).plusSeconds(1);
            assertThat(stats.collectByName(target(monitor, shelf, muchLater, STATS_EVERY), "query_stats"))
                    .containsOnlyKeys("query_stats");
        }
    }

    private static List<String> queries(List<Measurement.Row> rows) {
        return rows.stream().map(r -> (String) r.values().get("query")).toList();
    }

    private static void run(Connection connection, String sql) throws Exception {
        try (Statement st = connection.createStatement()) {
            st.executeQuery(sql).close();
        }
    }

    private static NativeTarget target(Connection connection, SourceShelf shelf, Instant now, Duration interval) {
        return new NativeTarget("first-minute", DB, pg.majorVersion(), ":0", true, new JdbcSqlReader(connection),
                interval, now, null, GenericPlans.NONE, shelf);
    }
}
