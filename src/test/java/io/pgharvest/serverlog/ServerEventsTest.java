package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.model.Measurement;
import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.store.LogPositions;
import io.pgharvest.store.LogPositions.LogPosition;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * log_server_events from a real server's log: a backend killed with SIGKILL makes the postmaster
 * restart and recover from the crash; a streaming standby enters standby mode, streams, loses its
 * primary and is promoted to a new timeline.
 */
class ServerEventsTest {

    private static TestPostgres pg;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.of("logging_collector", "on", "log_destination", "csvlog",
                "log_rotation_age", "0", "log_rotation_size", "0", "lc_messages", "C"));
    }

    @AfterAll
    static void stopServer() {
        pg.close();
    }

    @Test
    void aKilledBackendYieldsTheCrashTheRestartAndTheRecovery() throws Exception {
        var positions = LogPositions.inMemory();
        try (Connection session = pg.connect("postgres"); Connection victim = pg.connect("postgres")) {
            new LogReading(pg, positions, LogInsightsTail.READ_BUDGET, session).tick();
            // WAL since the last checkpoint, so the recovery has something to redo
            LogWorkload.execute(victim, "create table crash_redo as select generate_series(1, 1000) g");
            ProcessHandle.of(LogWorkload.pid(victim)).orElseThrow().destroyForcibly();
        }
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> "1".equals(pg.queryString("postgres",
                "select 1::text")));

        try (Connection session = pg.connect("postgres")) {
            var reading = new LogReading(pg, positions, LogInsightsTail.READ_BUDGET, session);
            reading.until(LogCategory.SERVER_EVENTS, kind("backend_crashed").and(row ->
                    String.valueOf(row.values().get("message")).contains("was terminated by signal")));
            reading.until(LogCategory.SERVER_EVENTS, kind("crash_restart"));
            reading.until(LogCategory.SERVER_EVENTS, kind("recovery_started"));
            reading.until(LogCategory.SERVER_EVENTS, kind("redo_started").and(row -> row.values().get("lsn") != null));
            reading.until(LogCategory.SERVER_EVENTS, kind("redo_done").and(row -> row.values().get("lsn") != null
                    && (pg.majorVersion() < 15 || row.values().get("elapsed_s") instanceof Double)));
            reading.until(LogCategory.SERVER_EVENTS, kind("ready"));
        }
    }

    @Test
    void aStandbyLogsItsStreamingItsLostPrimaryAndItsPromotion() throws Exception {
        try (TestPostgres standby = pg.startStandby("events_standby"); Connection session = standby.connect("postgres")) {
            var positions = LogPositions.inMemory();
            String file = standby.queryString("postgres", "select pg_current_logfile('csvlog')");
            positions.save("logs", new LogPosition("csvlog", file.substring(file.lastIndexOf('/') + 1), 0));
            var reading = new LogReading(standby, positions, LogInsightsTail.READ_BUDGET, session);

            reading.until(LogCategory.SERVER_EVENTS, kind("standby_mode"));
            reading.until(LogCategory.SERVER_EVENTS, kind("consistent").and(row -> row.values().get("lsn") != null));
            reading.until(LogCategory.SERVER_EVENTS, kind("streaming_started")
                    .and(row -> "1".equals(row.values().get("timeline")) && row.values().get("lsn") != null));

            pg.stop();
            try {
                reading.until(LogCategory.SERVER_EVENTS, kind("streaming_ended"));
            } finally {
                pg.start();
            }
            standby.execute("postgres", "select pg_promote()");
            reading.until(LogCategory.SERVER_EVENTS, kind("promoted"));
            reading.until(LogCategory.SERVER_EVENTS, kind("new_timeline").and(row -> "2".equals(row.values().get("timeline"))));
        }
    }

    private static Predicate<Measurement.Row> kind(String kind) {
        return row -> kind.equals(row.tags().get("kind"));
    }
}
