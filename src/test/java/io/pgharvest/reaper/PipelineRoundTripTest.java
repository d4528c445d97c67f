package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** All metrics due on a tick reach the server in one pipelined transaction. */
class PipelineRoundTripTest {

    /** A server of its own with autovacuum off: its workers' transactions would count too. */
    private static TestPostgres pg;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.of("autovacuum", "off"));
    }

    @AfterAll
    static void stopServer() {
        pg.close();
    }

    @Test
    void twentyMetricsDueOnOneTickCostTheSourceOneTransactionPerTick() throws Exception {
        pg.createDatabase("roundtrip_db");
        var metrics = new ArrayList<MetricDefinition>();
        var selection = new LinkedHashMap<String, Integer>();
        for (int i = 1; i <= 20; i++) {
            String name = "m%02d".formatted(i);
            metrics.add(metric(name, "select " + i + " as value, 'x' as tag_kind, datname from pg_database"
                    + " where datname = current_database()"));
            selection.put(name, 10);
        }
        var kit = new ReaperTestKit();
        var config = ReaperTestKit.config(source("rt", pg.connStr("roundtrip_db"), selection), metrics);
        long before = transactions();

        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.100Z"));
        var reaper = new SourceReaper(config, kit.context, timer);
        reaper.start();
        int ticks = 6;
        for (int sleeps = 1; sleeps <= ticks; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
        }
        timer.awaitSleepRequests(ticks + 1);
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();

        for (int i = 1; i <= 20; i++) {
            assertThat(kit.publisher.of("rt", "m%02d".formatted(i))).hasSize(ticks);
        }
        var row = kit.publisher.of("rt", "m07").getFirst().rows().getFirst();
        assertThat(row.values()).containsEntry("value", 7L).containsEntry("datname", "roundtrip_db");
        assertThat(row.tags()).containsEntry("kind", "x");
        // Opening the session costs 2 transactions: the server's own at backend start-up, and one
        // reading version/role, the role's privileges and the system identifier. Then exactly one
        // per tick.
        assertThat(awaitTransactionsAtLeast(before + 2 + ticks) - before).isEqualTo(2 + ticks);
    }

    /** Committed plus rolled back transactions of the source database, as the server counts them. */
    private static long transactions() throws Exception {
        try (Connection c = pg.connect("postgres"); Statement st = c.createStatement()) {
            st.execute("select pg_stat_clear_snapshot()");
            try (ResultSet rs = st.executeQuery("select xact_commit + xact_rollback from pg_stat_database"
                    + " where datname = 'roundtrip_db'")) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /** A backend reports its counters when it exits; wait for that, then for them to settle. */
    private static long awaitTransactionsAtLeast(long expected) throws Exception {
        org.awaitility.Awaitility.await("transactions counted").atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(100)).until(PipelineRoundTripTest::transactions, seen -> seen >= expected);
        // Anything beyond the expectation arrives with the rest: the count must then hold still.
        long[] settled = {transactions()};
        org.awaitility.Awaitility.await("transaction count settled").during(Duration.ofMillis(1_500))
                .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    long now = transactions();
                    boolean same = now == settled[0];
                    settled[0] = now;
                    return same;
                });
        return settled[0];
    }
}
