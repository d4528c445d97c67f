package io.pgharvest.reaper;

import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.postgres.QueryPipeline;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.testsupport.RoundTripCountingProxy;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A tick's pipeline is one network round trip on the wire (one Sync), also once pgjdbc has
 * switched to server-side prepared statements and also when a metric's SQL holds a question
 * mark (in a comment, a literal or as the jsonb operator), counted by a proxy that reads the
 * protocol.
 */
class PipelineSyncCountTest {

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
    void aReaperOpensItsSessionInFourRoundTripsThenSpendsOnePerTick() throws Exception {
        pg.createDatabase("sync_reaper_db");
        var metrics = new ArrayList<MetricDefinition>();
        var selection = new LinkedHashMap<String, Integer>();
        for (int i = 1; i <= 12; i++) {
            String name = "r%02d".formatted(i);
            metrics.add(ReaperTestKit.metric(name, "select " + i + " as value, datname::text as name from pg_database"
                    + " where datname = current_database()"));
            selection.put(name, 10);
        }
        try (var proxy = new RoundTripCountingProxy(pg.host(), pg.port())) {
            var kit = new ReaperTestKit();
            var config = ReaperTestKit.config(ReaperTestKit.source("sync", "postgresql://" + TestPostgres.SUPERUSER
                    + "@127.0.0.1:" + proxy.port() + "/sync_reaper_db", selection), metrics);
            var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.100Z"));
            var reaper = new SourceReaper(config, kit.context, timer);
            reaper.start();
            timer.awaitSleepRequests(1);
            long opened = proxy.roundTrips();
            for (int sleeps = 1; sleeps <= TICKS; sleeps++) {
                timer.advanceTo(timer.awaitSleepRequests(sleeps));
            }
            timer.awaitSleepRequests(TICKS + 1);
            long total = proxy.roundTrips();
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
            assertThat(kit.publisher.of("sync", "r12")).hasSize(TICKS);
            // Opening: facts (with the transaction's opening statements), the role's
            // privileges, the system identifier, the rollback. Then one per tick.
            assertThat(opened).isEqualTo(4);
            assertThat(total - opened).isEqualTo(TICKS);
        }
    }
}
