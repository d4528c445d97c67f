package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.testsupport.RoundTripCountingProxy;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One tick's queries as the pipeline runs them on a session: one network round trip on the wire
 * (one Sync), also once pgjdbc has switched to server-side prepared statements and also when a
 * metric's SQL holds a question mark (counted by a proxy that reads the protocol), and each
 * metric under its own statement timeout, in its place in the results. The engine's side of the
 * same (a reaper's ticks) is {@code reaper.PipelineRoundTripTest} and {@code reaper.PipelineSyncCountTest}.
 */
class QueryPipelineTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final int TICKS = 10;

    @Test
    void tenTicksOfTwelveMetricsAreTenRoundTripsAndTheirPlansAreReused() throws Exception {
        pg.createDatabase("sync_count_db");
        var queries = new ArrayList<MetricQuery>();
        for (int i = 1; i <= 9; i++) {
            // text columns: pgjdbc cannot bound their size once it has described the statement
            queries.add(new MetricQuery("m" + i, "select datname::text as name, " + i
                    + " as v, repeat('x', " + i + ") as t from pg_database where datname = current_database()",
                    Duration.ofSeconds(5)));
        }
        queries.add(new MetricQuery("comment", "select 1 as v -- is this a placeholder?", Duration.ofSeconds(5)));
        queries.add(new MetricQuery("literal", "select 'why?' as t, E'a?b' as u", Duration.ofSeconds(5)));
        queries.add(new MetricQuery("jsonb", "select '{\"a\": 1}'::jsonb ? 'a' as has_a", Duration.ofSeconds(5)));
        try (var proxy = new RoundTripCountingProxy(pg.host(), pg.port());
                Connection c = DriverManager.getConnection(
                        "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/sync_count_db?user=" + TestPostgres.SUPERUSER
                                + "&sslmode=disable")) {
            var pipeline = new QueryPipeline(c, Duration.ofSeconds(5), Duration.ofSeconds(30));
            pipeline.run(queries); // the first run may set the network timeout and prepare
            long before = proxy.roundTrips();
            List<FetchedRows> last = List.of();
            for (int tick = 0; tick < TICKS; tick++) {
                last = pipeline.run(queries);
            }
            assertThat(proxy.roundTrips() - before).isEqualTo(TICKS);
            assertThat(last.get(2).rows().getFirst().values()).containsEntry("name", "sync_count_db")
                    .containsEntry("v", 3L).containsEntry("t", "xxx");
            assertThat(last.get(9).rows().getFirst().values()).containsEntry("v", 1L);
            assertThat(last.get(10).rows().getFirst().values()).containsEntry("t", "why?").containsEntry("u", "a?b");
            assertThat(last.get(11).rows().getFirst().values()).containsEntry("has_a", true);
            // Past pgjdbc's prepare threshold the server holds the metrics' statements, also the
            // pipeline with question marks: it parses and plans none of them again.
            try (Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("select count(*) from pg_prepared_statements"
                            + " where statement like '%current_database()%' or statement like '%jsonb%'")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(10);
            }
            pipeline.close();
        }
    }

    @Test
    void metricsWithTheirOwnTimeoutRunUnderItAndKeepTheirPlaceInTheResults() throws Exception {
        pg.createDatabase("timeouts_db");
        try (Connection c = pg.connect("timeouts_db"); Statement st = c.createStatement()) {
            st.execute("set statement_timeout = '5s'");
            var pipeline = new QueryPipeline(c, Duration.ofSeconds(5), Duration.ofSeconds(30));
            String sql = "select current_setting('statement_timeout') as limit_text";
            var queries = List.of(new MetricQuery("a", sql, Duration.ofSeconds(3)),
                    new MetricQuery("b", sql, Duration.ofSeconds(5)), new MetricQuery("c", sql, Duration.ofSeconds(1)),
                    new MetricQuery("d", sql, Duration.ofSeconds(3)));
            for (int run = 0; run < 2; run++) {
                var limits = pipeline.run(queries).stream()
                        .map(rows -> rows.rows().getFirst().values().get("limit_text")).toList();
                assertThat(limits).containsExactly("3s", "5s", "1s", "3s");
            }
            assertThat(pipeline.runAlone(queries.get(2)).rows().rows().getFirst().values())
                    .containsEntry("limit_text", "1s");
            // Transaction-local: the session's own limit is back after each round trip.
            try (ResultSet rs = st.executeQuery("show statement_timeout")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("5s");
            }
            pipeline.close();
        }
    }
}
