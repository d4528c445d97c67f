package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.store.LogPositions;
import io.pgharvest.store.file.FileLogPositions;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The log_* metrics against a real server writing csvlog, jsonlog and stderr with two prefixes:
 * each category from events the test causes (autovacuum after a bloat, a forced checkpoint, a lock
 * wait past deadlock_timeout, a deadlock, a temp file, a wrong password, a slow statement and its
 * auto_explain plan), and none of the literals the workload wrote reaches a row or pgharvest's own
 * log. The first stderr prefix has no client address: there, connection failures are unavailable
 * with the escape to add.
 */
@ExtendWith(OutputCaptureExtension.class)
class LogInsightsTest {

    static final String PREFIX_A = "%m [%p] %q%u@%d %e %Q ";
    static final String PREFIX_B = "%t:%h:%u@%d:[%p]:%e:%Q: ";
    private static final String CORPUS = LogWorkload.CORPUS;
    private static final String CURRENT_CSV_SIZE = "select (pg_stat_file(pg_current_logfile('csvlog'))).size::text";
    private static TestPostgres pg;
    private LogWorkload workload;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.ofEntries(Map.entry("logging_collector", "on"),
                Map.entry("log_destination", "csvlog"), Map.entry("log_filename", "postgresql-%Y%m%d_%H%M%S.log"),
                Map.entry("log_rotation_age", "0"), Map.entry("log_rotation_size", "0"),
                Map.entry("lc_messages", "C"), Map.entry("log_autovacuum_min_duration", "0"),
                Map.entry("autovacuum_naptime", "1s"), Map.entry("log_checkpoints", "on"),
                Map.entry("log_lock_waits", "on"), Map.entry("deadlock_timeout", "200ms"),
                Map.entry("log_temp_files", "0"), Map.entry("compute_query_id", "on"),
                Map.entry("log_min_duration_statement", "250ms"), Map.entry("shared_preload_libraries", "auto_explain"),
                Map.entry("auto_explain.log_min_duration", "250ms"), Map.entry("auto_explain.log_analyze", "on")));
        LogWorkload.prepare(pg, "loginsights");
    }

    @AfterAll
    static void stopServer() {
        pg.close();
    }

    @BeforeEach
    void openWorkload() {
        workload = new LogWorkload(pg, "loginsights", Duration.ofMillis(200));
    }

    @AfterEach
    void closeConnections() throws SQLException {
        workload.close();
    }

    private Connection connect() throws SQLException {
        return workload.connect();
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        LogWorkload.execute(connection, sql);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {"csvlog|json|", "jsonlog|json|", "stderr|text|'" + PREFIX_A + "'",
        "stderr|text|'" + PREFIX_B + "'"})
    void everyCategoryComesFromTheEventsTheServerLogged(String destination, String planFormat, String prefix,
            CapturedOutput ownLog) throws Exception {
        logTo(destination, prefix == null ? "%m [%p] " : prefix, planFormat);
        var reading = new LogReading(pg, LogPositions.inMemory(), LogInsightsTail.READ_BUDGET, connect());
        reading.tick();
        String suffix = destination + (prefix == null ? "" : Integer.toString(prefix.length()));

        CausedEvents caused = workload.causeEveryCategory(suffix, CORPUS);
        workload.writeLiteralCorpus();

        caused.assertFoundBy(reading, planFormat, prefix == null || prefix.contains("%h"));
        reading.until(LogCategory.ERRORS, row -> "22P02".equals(row.values().get("sqlstate"))
                && "22".equals(row.tags().get("class")));

        reading.assertNoValueContains(CORPUS);
        reading.assertNoValueContains(LogWorkload.CORPUS_NUMBER);
        // pgharvest's own log while it read those events: none of the corpus's literals in any
        // line. The reader logs only on trouble, so a line through its logger first shows that the
        // capture sees what that logger writes (otherwise the assertion could not fail).
        LoggerFactory.getLogger(LogInsightsTail.class).warn("capture check {}", destination);
        assertThat(ownLog.getAll()).contains("capture check " + destination).doesNotContain(CORPUS, LogWorkload.CORPUS_NUMBER);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"log_errors,'%m [%p] ',log_line_prefix has no %e", "log_connection_failures,'%m [%p] ',neither %h nor %r"})
    void aPrefixWithoutWhatACategoryNeedsMakesItUnavailableWithTheSettingToAdd(String metric, String prefix,
            String reason) throws Exception {
        logTo("stderr", prefix, "text");
        var reading = new LogReading(pg, LogPositions.inMemory(), LogInsightsTail.READ_BUDGET, connect());
        LogCategory category = LogCategory.valueOf(metric.substring(4).toUpperCase(java.util.Locale.ROOT));

        assertThatThrownBy(() -> reading.collect(category)).isInstanceOf(NativeMetric.Unavailable.class)
                .hasMessageContaining(reason);
    }

    @org.junit.jupiter.api.Test
    void aRotationAndARestartInTheMiddleOfAFileReadEveryEventOnce(@org.junit.jupiter.api.io.TempDir Path dataDir)
            throws Exception {
        logTo("csvlog", "%m [%p] ", "json");
        pg.createDatabase("rotation");
        Path positionsFile = dataDir.resolve("log-positions.json");
        var before = new LogReading(pg, new FileLogPositions(positionsFile), 4096, connect());
        before.tick();

        long sizeBefore = Long.parseLong(pg.queryString("postgres", CURRENT_CSV_SIZE));
        errors(30);
        await().atMost(Duration.ofSeconds(10)).until(() -> Long.parseLong(pg.queryString("postgres", CURRENT_CSV_SIZE))
                > sizeBefore + 30 * 200);
        before.tick();
        long readBefore = errorsIn(before);
        assertThat(readBefore).as("the first read stops within its budget, in the middle of the file")
                .isPositive().isLessThan(30);

        // pgharvest restarts: a new reading with the positions the store kept
        rotate();
        errors(20);
        var after = new LogReading(pg, new FileLogPositions(positionsFile), LogInsightsTail.READ_BUDGET, connect());
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            after.tick();
            assertThat(readBefore + errorsIn(after)).isEqualTo(50);
        });
        after.tick();
        assertThat(readBefore + errorsIn(after)).as("nothing read twice").isEqualTo(50);
    }

    private static void errors(int count) {
        for (int i = 0; i < count; i++) {
            assertThatThrownBy(() -> pg.execute("rotation", "select 1 / 0")).isInstanceOf(RuntimeException.class);
        }
    }

    private static long errorsIn(LogReading reading) {
        return reading.rows(LogCategory.ERRORS).stream().filter(row -> "rotation".equals(row.values().get("dbname"))
                && "22012".equals(row.values().get("sqlstate"))).mapToLong(row -> (Long) row.values().get("count")).sum();
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

    /** Sets log_destination, the prefix and auto_explain's format, and waits until the server writes there. */
    static void logTo(String destination, String prefix, String planFormat) {
        pg.execute("postgres", "alter system set log_destination = '" + destination + "'");
        pg.execute("postgres", "alter system set log_line_prefix = '" + prefix + "'");
        pg.execute("postgres", "alter system set auto_explain.log_format = '" + planFormat + "'");
        pg.execute("postgres", "select pg_reload_conf()");
        await().atMost(Duration.ofSeconds(10)).until(() -> pg.queryString("loginsights",
                "select current_setting('log_destination') || current_setting('log_line_prefix')")
                .equals(destination + prefix)
                && pg.queryString("loginsights", "select pg_current_logfile('" + destination + "')") != null);
    }
}
