package io.pgharvest.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.testsupport.RoundTripCountingProxy;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
