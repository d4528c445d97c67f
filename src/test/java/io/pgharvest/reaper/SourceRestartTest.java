package io.pgharvest.reaper;

import io.pgharvest.reaper.schedule.TickTimer;
import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.SessionState;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A reaper survives a killed backend and a server restart, reporting instance_up 0 then 1. */
class SourceRestartTest {

    private static TestPostgres pg;

    @BeforeAll
    static void startPrivateServer() {
        pg = TestPostgres.start(Map.of());
        pg.createDatabase("restart_db");
    }

    @AfterAll
    static void closeServer() {
        pg.close();
    }

    @Test
    void reaperReconnectsWithinTheTickAfterItsBackendIsTerminatedAndWithBackOffAfterAServerRestart() throws Exception {
        var kit = new ReaperTestKit(Duration.ofMillis(200), Duration.ofSeconds(1));
        var config = ReaperTestKit.config(source("restart", pg.connStr("restart_db"), Map.of("ping", 1)),
                List.of(metric("ping", "select 1 as v")));
        var reaper = new SourceReaper(config, kit.context, TickTimer.system(Clock.systemUTC()));
        reaper.start();
        try {
            awaitInstanceUp(kit, 1, 2);

            // A terminated backend (like idle_session_timeout or a restarted pooler) is noticed on
            // the next tick, which reconnects at once and still delivers: no tick is lost.
            String oldPid = backendPid();
            kit.publisher.clear();
            pg.execute("postgres", "select pg_terminate_backend(pid) from pg_stat_activity"
                    + " where application_name = 'pgharvest' and datname = 'restart_db'");
            awaitInstanceUp(kit, 1, 3);
            assertThat(backendPid()).isNotEqualTo(oldPid).isNotEqualTo("0");
            assertThat(kit.publisher.all().stream().filter(m -> m.metric().equals("instance_up"))
                    .map(SourceRestartTest::instanceUp)).containsOnly(1L);
            assertThat(kit.publisher.of("restart", "ping")).hasSizeGreaterThanOrEqualTo(3);

            pg.stop();
            kit.publisher.clear();
            awaitInstanceUp(kit, 0, 3);
            assertThat(reaper.status().state()).isEqualTo(SessionState.DISCONNECTED);
            assertThat(reaper.status().lastConnectionError()).isNotBlank();
            int pingsWhileDown = kit.publisher.of("restart", "ping").size();

            pg.start();
            awaitInstanceUp(kit, 1, 2);
            assertThat(pingsWhileDown).isZero();
            assertThat(reaper.status().connected()).isTrue();
        } finally {
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        }
    }

    private static String backendPid() {
        return pg.queryString("postgres", "select coalesce(max(pid), 0)::text from pg_stat_activity"
                + " where application_name = 'pgharvest' and datname = 'restart_db'");
    }

    /** Waits for {@code count} instance_up measurements with {@code value} after the last clear. */
    private static void awaitInstanceUp(ReaperTestKit kit, long value, int count) throws InterruptedException {
        kit.publisher.await(m -> m.metric().equals("instance_up") && instanceUp(m) == value, count,
                Duration.ofSeconds(20));
    }

    private static long instanceUp(Measurement m) {
        return ((Number) m.rows().getFirst().values().get("instance_up")).longValue();
    }
}
