package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.testsupport.JdbcSqlReader;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * server_log_event_counts against a server writing csvlog (then jsonlog): counts exactly the
 * records the test causes, per database and in all, tick after tick and across a rotation, both
 * from the file system and through SQL.
 */
class ServerLogEventCountsTest {

    private static TestPostgres pg;
    private Connection connection;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.of("logging_collector", "on", "log_destination", "csvlog",
                "log_filename", "postgresql-%Y%m%d_%H%M%S.log", "log_rotation_age", "0", "log_rotation_size", "0",
                "lc_messages", "C", "log_min_messages", "warning"));
        pg.createDatabase("logtest");
    }

    @AfterAll
    static void stopServer() {
        pg.close();
    }

    @BeforeEach
    void connect() throws Exception {
        logTo("csvlog");
    }

    @AfterEach
    void disconnect() throws Exception {
        connection.close();
    }

    @ParameterizedTest(name = "on this host: {0}")
    @ValueSource(booleans = {true, false})
    void countsTheRecordsOfEachTickOnceAcrossARotation(boolean local) throws Exception {
        var tail = new LogTail();
        assertThat(collect(tail, local)).as("the first collection starts at the end").allSatisfy((k, v) ->
                assertThat(v).as(k).isZero());

        warnings("logtest", 3);
        errors("logtest", 2);
        errors("postgres", 1);
        Map<String, Long> counted = collectUntil(tail, local, Map.of("warning", 3L, "error", 2L, "error_total", 3L,
                "warning_total", 3L));
        assertThat(counted).containsEntry("fatal", 0L).containsEntry("panic", 0L);

        errors("logtest", 1);
        rotate();
        errors("logtest", 2);
        warnings("postgres", 1);
        collectUntil(tail, local, Map.of("error", 3L, "error_total", 3L, "warning", 0L, "warning_total", 1L));
    }

    @ParameterizedTest(name = "on this host: {0}")
    @ValueSource(booleans = {true, false})
    void aBacklogBiggerThanOneTicksReadIsCountedOverTheNextTicks(boolean local) throws Exception {
        var tail = new LogTail();
        collect(tail, local);
        // About 17 MB of csvlog: more than one collection reads (LogTail.MAX_READ_PER_TICK).
        pg.execute("logtest", "do $$ begin for i in 1..60000 loop raise warning 'pgharvest backlog %', i; end loop; end $$");

        // The logging collector writes behind the sessions: wait until more than one read's worth is there.
        await().atMost(Duration.ofSeconds(15)).until(() -> pg.queryString("postgres",
                "select (sum(size) > 12000000)::text from pg_ls_logdir()").equals("true"));
        Map<String, Long> first = collect(tail, local);
        assertThat(first.get("warning")).isPositive().isLessThan(60_000L);
        var rest = new HashMap<>(Map.of("warning", 60_000L - first.get("warning")));
        collectUntil(tail, local, rest);
    }

    @ParameterizedTest(name = "on this host: {0}")
    @ValueSource(booleans = {true, false})
    void readsJsonlogWhenTheServerWritesNoCsv(boolean local) throws Exception {
        logTo("jsonlog");
        var tail = new LogTail();
        collect(tail, local);

        errors("logtest", 2);
        warnings("postgres", 2);
        collectUntil(tail, local, Map.of("error", 2L, "error_total", 2L, "warning", 0L, "warning_total", 2L));
    }

    @ParameterizedTest(name = "on this host: {0}")
    @ValueSource(booleans = {true, false})
    void isUnavailableWithTheReasonWhenTheServerWritesNoLogFiles(boolean local) throws Exception {
        logTo("stderr");

        assertThatThrownBy(() -> collect(new LogTail(), local)).isInstanceOf(NativeMetric.Unavailable.class)
                .hasMessageContaining("log_destination 'stderr' has neither csvlog nor jsonlog");
    }

    /** Sets log_destination, waits until new sessions see it (and its file is open), and reconnects. */
    private void logTo(String destination) throws Exception {
        pg.execute("postgres", "alter system set log_destination = '" + destination + "'");
        pg.execute("postgres", "select pg_reload_conf()");
        await().atMost(Duration.ofSeconds(10)).until(() -> pg.queryString("logtest",
                "select current_setting('log_destination')").equals(destination)
                && (destination.equals("stderr") || pg.queryString("logtest",
                        "select pg_current_logfile('" + destination + "')") != null));
        if (connection != null) {
            connection.close();
        }
        connection = pg.connect("logtest");
    }

    /** Collects until the sums of the counts reach {@code expected}, then once more: nothing is counted twice. */
    private Map<String, Long> collectUntil(LogTail tail, boolean local, Map<String, Long> expected) {
        var sums = new HashMap<String, Long>();
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            collect(tail, local).forEach((k, v) -> sums.merge(k, v, Long::sum));
            assertThat(sums).containsAllEntriesOf(expected);
        });
        Map<String, Long> after;
        try {
            after = collect(tail, local);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        after.forEach((k, v) -> sums.merge(k, v, Long::sum));
        assertThat(sums).containsAllEntriesOf(expected);
        return sums;
    }

    private Map<String, Long> collect(LogTail tail, boolean local) throws Exception {
        var target = new NativeTarget("logs", "logtest", pg.majorVersion(), local ? ":0" : "192.0.2.10:5432", local,
                new JdbcSqlReader(connection), Duration.ofSeconds(60), Instant.now(), null);
        var values = tail.collect(target).getFirst().values();
        assertThat(values.keySet()).containsExactly("debug", "debug_total", "info", "info_total", "notice",
                "notice_total", "warning", "warning_total", "error", "error_total", "log", "log_total", "fatal",
                "fatal_total", "panic", "panic_total");
        var counts = new HashMap<String, Long>();
        values.forEach((k, v) -> counts.put(k, (Long) v));
        return counts;
    }

    private static void warnings(String database, int count) {
        for (int i = 0; i < count; i++) {
            pg.execute(database, "do $$ begin raise warning 'pgharvest log test %', " + i + "; end $$");
        }
    }

    private static void errors(String database, int count) {
        for (int i = 0; i < count; i++) {
            try {
                pg.execute(database, "select 1 / 0 as \"line\nbreak, \"\"quoted\"\"\"");
            } catch (RuntimeException expected) {
                // the error is what the log records
            }
        }
    }

    /** Rotates to a new file (its name has the second in it: retried until the name changes). */
    private static void rotate() {
        String before = pg.queryString("postgres", "select pg_current_logfile()");
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
            pg.execute("postgres", "select pg_rotate_logfile()");
            String now = pg.queryString("postgres", "select pg_current_logfile()");
            return now != null && !now.equals(before);
        });
    }
}
