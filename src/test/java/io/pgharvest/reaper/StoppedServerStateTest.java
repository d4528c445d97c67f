package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A source whose server stops reads as down within 5 s whatever its metrics' intervals (here one
 * metric every 10 minutes): between ticks the reaper looks at the session it holds, without
 * sending a query, notices the server's goodbye and tries to reconnect at once. A real PostgreSQL
 * server, stopped; and a session the server ends while the server stays up (pg_terminate_backend,
 * as idle_session_timeout or a pooler would) is replaced at once without reading as down.
 */
class StoppedServerStateTest {

    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static TestPostgres pg;

    @BeforeAll
    static void privateServer() {
        pg = TestPostgres.start(Map.of());
        pg.createDatabase("stopped_db");
    }

    @AfterAll
    static void closeServer() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void aSessionEndedWhileTheServerStaysUpIsReplacedAndTheSourceStaysConnected() throws Exception {
        var kit = new ReaperTestKit(ReaperTestKit.sessions(), Duration.ofSeconds(2));
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var reaper = new SourceReaper(ReaperTestKit.config(source("ended", pg.connStr("stopped_db"),
                Map.of("slow", 600)), List.of(metric("slow", "select 1 as a"))), kit.context, timer);
        reaper.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> reaper.status().state() == SessionState.CONNECTED);
            String before = pg.queryString("stopped_db",
                    "select string_agg(pid::text, ',') from pg_stat_activity where application_name like 'pgharvest%'"
                            + " and datname = 'stopped_db'");
            pg.execute("stopped_db", "select pg_terminate_backend(pid) from pg_stat_activity where pid in (" + before
                    + ")");
            int asked = timer.sleepCount();
            timer.advanceTo(timer.sleepRequests().getLast());
            timer.awaitSleepRequests(asked + 1);
            String after = pg.queryString("stopped_db",
                    "select string_agg(pid::text, ',') from pg_stat_activity where application_name like 'pgharvest%'"
                            + " and datname = 'stopped_db'");

            assertThat(reaper.status().state()).isEqualTo(SessionState.CONNECTED);
            assertThat(after).as("a new session").isNotNull().isNotEqualTo(before);
        } finally {
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    void aStoppedServerReadsAsDisconnectedWithinFiveSecondsOfTheReapersTime() throws Exception {
        var kit = new ReaperTestKit(ReaperTestKit.sessions(), Duration.ofSeconds(2));
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var reaper = new SourceReaper(ReaperTestKit.config(source("stops", pg.connStr("stopped_db"),
                Map.of("slow", 600)), List.of(metric("slow", "select 1 as a"))), kit.context, timer);
        reaper.start();
        SourceRuntimeStatus down;
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> reaper.status().state() == SessionState.CONNECTED);
            Instant stoppedAt = timer.now();
            pg.stop();
            Instant limit = stoppedAt.plusSeconds(5);
            // Walk the reaper's own clock from one wake-up to the next, no further than 5 s.
            while (reaper.status().state() == SessionState.CONNECTED && timer.now().isBefore(limit)) {
                int asked = timer.sleepCount();
                Instant wake = timer.sleepRequests().getLast();
                timer.advanceTo(wake.isAfter(limit) ? limit : wake);
                if (!wake.isAfter(limit)) {
                    timer.awaitSleepRequests(asked + 1);
                }
            }
            down = reaper.status();
        } finally {
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
            pg.start();
        }

        assertThat(down.state()).as("state 5 s after the server stopped").isEqualTo(SessionState.DISCONNECTED);
        assertThat(down.connected()).isFalse();
        assertThat(down.lastConnectionError()).as("the reconnect the goodbye triggered").contains("cannot connect");
    }
}
