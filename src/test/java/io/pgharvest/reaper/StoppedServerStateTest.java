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
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var kit = new ReaperTestKit(ReaperTestKit.sessions(), Duration.ofSeconds(2), timer);
        var reaper = new SourceReaper(ReaperTestKit.config(source("ended", pg.connStr("stopped_db"),
                Map.of("slow", 600)), List.of(metric("slow", "select 1 as a"))), kit.context, timer);
        reaper.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> reaper.status().state() == SessionState.CONNECTED);
            String before = sessionPids();
            pg.execute("stopped_db", "select pg_terminate_backend(pid) from pg_stat_activity where pid in (" + before
                    + ")");

            boolean replaced = walkClockUntil(timer, timer.now().plusSeconds(5),
                    () -> sessionPids() != null && !sessionPids().equals(before));

            assertThat(replaced).as("a new session within 5 s of the reaper's time").isTrue();
            assertThat(reaper.status().state()).isEqualTo(SessionState.CONNECTED);
        } finally {
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
            kit.context.idleSessions().stop();
        }
    }

    @Test
    void aStoppedServerReadsAsDisconnectedWithinFiveSecondsOfTheReapersTime() throws Exception {
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var kit = new ReaperTestKit(ReaperTestKit.sessions(), Duration.ofSeconds(2), timer);
        var reaper = new SourceReaper(ReaperTestKit.config(source("stops", pg.connStr("stopped_db"),
                Map.of("slow", 600)), List.of(metric("slow", "select 1 as a"))), kit.context, timer);
        reaper.start();
        SourceRuntimeStatus down;
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> reaper.status().state() == SessionState.CONNECTED);
            pg.stop();
            walkClockUntil(timer, timer.now().plusSeconds(5), () -> reaper.status().state() != SessionState.CONNECTED);
            down = reaper.status();
        } finally {
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
            kit.context.idleSessions().stop();
            pg.start();
        }

        assertThat(down.state()).as("state 5 s after the server stopped").isEqualTo(SessionState.DISCONNECTED);
        assertThat(down.connected()).isFalse();
        assertThat(down.lastConnectionError()).as("the reconnect the goodbye triggered").contains("cannot connect");
    }

    private static String sessionPids() {
        return pg.queryString("stopped_db", "select string_agg(pid::text, ',') from pg_stat_activity"
                + " where application_name like 'pgharvest%' and datname = 'stopped_db'");
    }

    /**
     * Moves the reapers' clock forward in 100 ms steps, no further than {@code limit}, until
     * {@code done}; then, the clock standing at most at the limit, gives the threads up to 30 s of
     * real time to finish what the looks started (a loaded machine is slow, the clock is not).
     */
    private static boolean walkClockUntil(ManualTickTimer timer, Instant limit, java.util.concurrent.Callable<Boolean> done)
            throws Exception {
        while (!done.call() && timer.now().isBefore(limit)) {
            Instant next = timer.now().plusMillis(100);
            timer.advanceTo(next.isAfter(limit) ? limit : next);
            Thread.sleep(10);
        }
        try {
            await().atMost(Duration.ofSeconds(30)).until(done);
            return true;
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            return false;
        }
    }
}
