package io.pgharvest.serverlog;

import static org.awaitility.Awaitility.await;

import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The log_* metrics on every supported major version (binaries of the catalog version matrix):
 * one event of each category, caused once per server that writes csvlog, stderr and (15+) jsonlog
 * at the same time, then read in each of those formats through SQL (pg_ls_logdir,
 * pg_read_binary_file); then switched to the second prefix and text-format auto_explain plans
 * and read again in stderr. {@link LogInsightsTest} adds literals, rotation and restarts on the
 * default version.
 */
class LogInsightsVersionsTest {

    private static final Duration DEADLOCK_TIMEOUT = Duration.ofMillis(200);

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {14, 15, 16, 17, 18})
    void everyCategoryIsReadFromEachFormatTheVersionWrites(int major) throws Exception {
        List<String> destinations = major >= 15 ? List.of("csvlog", "jsonlog", "stderr") : List.of("csvlog", "stderr");
        try (TestPostgres pg = TestPostgres.start(major, settings(destinations));
                LogWorkload workload = new LogWorkload(pg, "loginsights", DEADLOCK_TIMEOUT)) {
            LogWorkload.prepare(pg, "loginsights");
            var readings = new LinkedHashMap<String, LogReading>();
            for (String destination : destinations) {
                LogReading reading = LogReading.onlyOf(pg, destination, workload.connect());
                reading.tick();
                readings.put(destination, reading);
            }

            CausedEvents caused = workload.causeEveryCategory("v" + major, "literal-");

            for (LogReading reading : readings.values()) {
                caused.assertFoundBy(reading, "json", true);
            }

            // The same server switched to the other prefix (no %h, %Q not last) and text plans,
            // read again in stderr: each version's stderr parsed under both prefixes.
            switchToTextPlansUnderPrefixA(pg);
            LogReading stderr = LogReading.onlyOf(pg, "stderr", workload.connect());
            stderr.tick();
            workload.causeEveryCategory("v" + major + "a", "literal-")
                    .assertFoundBy(stderr, "text", false);
        }
    }

    private static void switchToTextPlansUnderPrefixA(TestPostgres pg) {
        pg.execute("postgres", "alter system set log_line_prefix = '" + LogInsightsTest.PREFIX_A + "'");
        pg.execute("postgres", "alter system set auto_explain.log_format = 'text'");
        pg.execute("postgres", "select pg_reload_conf()");
        await().atMost(Duration.ofSeconds(10)).until(() -> pg.queryString("loginsights",
                "select current_setting('log_line_prefix') || current_setting('auto_explain.log_format')")
                .equals(LogInsightsTest.PREFIX_A + "text"));
    }

    private static Map<String, String> settings(List<String> destinations) {
        return Map.ofEntries(Map.entry("logging_collector", "on"),
                Map.entry("log_destination", String.join(",", destinations)),
                Map.entry("log_line_prefix", LogInsightsTest.PREFIX_B), Map.entry("lc_messages", "C"),
                Map.entry("log_autovacuum_min_duration", "0"), Map.entry("autovacuum_naptime", "1s"),
                Map.entry("log_checkpoints", "on"), Map.entry("log_lock_waits", "on"),
                Map.entry("deadlock_timeout", DEADLOCK_TIMEOUT.toMillis() + "ms"), Map.entry("log_temp_files", "0"),
                Map.entry("compute_query_id", "on"), Map.entry("log_min_duration_statement", "250ms"),
                Map.entry("shared_preload_libraries", "auto_explain"),
                Map.entry("auto_explain.log_min_duration", "250ms"), Map.entry("auto_explain.log_analyze", "on"),
                Map.entry("auto_explain.log_format", "json"));
    }
}
