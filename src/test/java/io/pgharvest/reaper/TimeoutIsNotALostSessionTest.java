package io.pgharvest.reaper;

import io.pgharvest.reaper.schedule.TickTimer;
import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.metricWithTimeout;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A statement timeout says the server is slow, not that the session is gone: the reaper keeps
 * its backend (counted in pg_stat_activity by pid and backend_start), during ticks and while
 * reading the server's facts when it connects.
 */
class TimeoutIsNotALostSessionTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void statementTimeoutsDuringTicksKeepTheOneSession() throws Exception {
        String db = "timeout_session_db";
        pg.createDatabase(db);
        // sleepy times out on every tick (1 s limit): its pipeline fails each time, which also
        // makes the reaper re-read the facts on the next tick.
        var metrics = List.of(metric("good", "select 1 as v"),
                metricWithTimeout("sleepy", "select pg_sleep(3) as slept", 1));
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.600Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("timeouts", pg.connStr(db),
                Map.of("good", 10, "sleepy", 10)), metrics), kit.context, timer);
        reaper.start();
        timer.awaitSleepRequests(1);
        List<String> backendsBefore = pgharvestBackends(db);
        int ticks = 5;
        for (int sleeps = 1; sleeps <= ticks; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
            timer.awaitSleepRequests(sleeps + 1);
        }
        SourceRuntimeStatus status = reaper.status();
        List<String> backendsAfter = pgharvestBackends(db);
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();

        assertThat(backendsBefore).hasSize(1);
        assertThat(backendsAfter).isEqualTo(backendsBefore);
        assertThat(status.state()).isEqualTo(SessionState.CONNECTED);
        assertThat(status.lastConnectionError()).isNull();
        var sleepy = status.metrics().stream().filter(m -> m.name().equals("sleepy")).findFirst().orElseThrow();
        assertThat(sleepy.lastError()).contains("57014");
        assertThat(kit.publisher.of("timeouts", "good")).isNotEmpty();
    }

    @Test
    void connectingWaitsOutAFactsQueryLongerThanTheStatementAndLockTimeouts() throws Exception {
        String db = "facts_lock_db";
        pg.createDatabase(db);
        var kit = new ReaperTestKit();
        var reaper = new SourceReaper(ReaperTestKit.config(source("factslock", pg.connStr(db), Map.of("one", 1)),
                List.of(metric("one", "select 1 as v"))), kit.context, TickTimer.system(Clock.systemUTC()));
        // A new backend must look its functions up in pg_proc: with pg_proc locked, the facts
        // query waits, longer than the 5 s statement and 1 s lock timeout of metrics.
        try (Connection holder = pg.connect(db); Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("lock table pg_catalog.pg_proc in access exclusive mode");
            reaper.start();
            try {
                Awaitility.await("facts query waiting on the lock for longer than the statement timeout")
                        .atMost(Duration.ofSeconds(25)).pollInterval(Duration.ofMillis(200))
                        .until(() -> longestLockWait(db), waited -> waited != null && waited > 6.5);
                List<String> waiting = pgharvestBackends(db);
                holder.rollback();

                kit.publisher.await(m -> m.metric().equals("one"), 1, Duration.ofSeconds(15));
                SourceRuntimeStatus status = reaper.status();
                assertThat(status.state()).isEqualTo(SessionState.CONNECTED);
                assertThat(status.lastConnectionError()).isNull();
                assertThat(status.serverVersionNum()).isEqualTo(pg.serverVersionNum());
                assertThat(waiting).hasSize(1);
                assertThat(pgharvestBackends(db)).isEqualTo(waiting);
            } finally {
                reaper.stop();
                reaper.awaitStop(Duration.ofSeconds(5));
            }
        }
    }

    /** pid and backend_start of every pgharvest backend in {@code db}: a reconnect changes them. */
    private static List<String> pgharvestBackends(String db) throws Exception {
        var backends = new ArrayList<String>();
        try (Connection c = pg.connect("postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("select pid || '@' || backend_start from pg_stat_activity"
                     + " where application_name = 'pgharvest' and datname = '" + db + "' order by pid")) {
            while (rs.next()) {
                backends.add(rs.getString(1));
            }
        }
        return backends;
    }

    /** Seconds the longest pgharvest query in {@code db} has waited on a lock, or null. */
    private static Double longestLockWait(String db) throws Exception {
        try (Connection c = pg.connect("postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("select max(extract(epoch from now() - query_start))::float8"
                     + " from pg_stat_activity where application_name = 'pgharvest' and datname = '" + db
                     + "' and wait_event_type = 'Lock'")) {
            rs.next();
            double seconds = rs.getDouble(1);
            return rs.wasNull() ? null : seconds;
        }
    }
}
