package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.serverlog.CausedEvents;
import io.pgharvest.serverlog.LogWorkload;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.slf4j.LoggerFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The source's Log tab and a statement's actual plans, in a real Chromium against a real server
 * writing csvlog with auto_explain: an autovacuum of a table named with markup shows as text, the
 * category filter narrows the list, and the slow statement's page shows its auto_explain plan with
 * actual rows and, from the log, its slow runs and temporary files. A workload writing literals in
 * every spelling into the log ({@link LogWorkload#writeLiteralCorpus}) besides one event of every
 * category: none reaches the JSON lines sink, the API's answers, the rendered Log tab or statement
 * page, or pgharvest's own log.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConsoleLogEventsTest extends ConsoleTestBase {

    private static final String TABLE = "v<img src=x onerror=window.logXss=1>";
    private static final String DATABASE = "consolelog";
    private static final Set<String> EVERY_METRIC = Set.of("log_autovacuum", "log_checkpoints", "log_lock_waits",
            "log_deadlocks", "log_temp_files", "log_errors", "log_connection_failures", "log_slow_statements", "log_plans");
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static TestPostgres pg;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.ofEntries(Map.entry("logging_collector", "on"),
                Map.entry("log_destination", "csvlog"), Map.entry("lc_messages", "C"),
                Map.entry("log_autovacuum_min_duration", "0"), Map.entry("autovacuum_naptime", "1s"),
                Map.entry("compute_query_id", "on"), Map.entry("shared_preload_libraries", "auto_explain"),
                Map.entry("auto_explain.log_min_duration", "200ms"), Map.entry("auto_explain.log_analyze", "on"),
                Map.entry("auto_explain.log_format", "json"), Map.entry("log_min_duration_statement", "200ms"),
                Map.entry("log_temp_files", "0"), Map.entry("log_checkpoints", "on"), Map.entry("log_lock_waits", "on"),
                Map.entry("deadlock_timeout", "200ms")));
        LogWorkload.prepare(pg, DATABASE);
    }

    @AfterAll
    static void stopServer() {
        pg.close();
    }

    @Test
    void theLogTabListsEventsAsTextAndTheStatementPageShowsItsActualPlan() {
        api("POST", "/api/v1/sources", """
                {"name": "log-tab", "connStr": "%s", "metrics": {"log_autovacuum": 1, "log_plans": 1, "log_errors": 1,
                  "log_slow_statements": 1, "log_temp_files": 1}}"""
                .formatted(pg.connStr("consolelog")));
        try {
            open("#/sources/log-tab");
            browser.driver().findElement(By.id("tab-log")).click();
            // a workload repeated until its events show: the first read of a log starts at its end
            String row = browser.waiting(Duration.ofSeconds(60)).until(d -> {
                pg.execute("consolelog", "create table if not exists \"" + TABLE + "\" (id int) with"
                        + " (autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0)");
                pg.execute("consolelog", "insert into \"" + TABLE + "\" select generate_series(1, 500);"
                        + " delete from \"" + TABLE + "\"");
                pg.execute("consolelog", "set work_mem = '64kB'; select pg_sleep(0.25), count(*) from (select g from"
                        + " generate_series(1, 60000) g order by g desc offset 0) s");
                var rows = d.findElements(By.cssSelector("#log-events tr[data-metric='log_autovacuum']"));
                return rows.isEmpty() ? null : rows.getFirst().getText();
            });
            assertThat(row).contains("table=public." + TABLE).contains("buffer_hits=");
            assertThat(browser.driver().executeScript("return window.logXss === undefined")).isEqualTo(true);
            assertThat(browser.driver().findElements(By.cssSelector("#view img"))).isEmpty();

            browser.driver().findElement(By.cssSelector("#log-event-category option[value='plans']")).click();
            String plan = awaitText(By.id("log-events"), t -> t.contains("plans") && !t.contains("autovacuum"));
            String queryid = browser.driver().findElement(
                    By.cssSelector("#log-events tr[data-metric='log_plans'] a[href*='/queries/']")).getText();
            assertThat(plan).contains("actual_rows=1");

            open("#/sources/log-tab/queries/" + queryid);
            String actual = awaitText(By.id("statement-actual-plans"), t -> t.contains("Sort"));
            assertThat(actual).contains("estimated 1 rows, actual 1").contains("actual rows 1");
            String logged = awaitText(By.id("statement-log-events"), t -> t.contains("slow run") && t.contains("temp file"));
            assertThat(logged).containsPattern("slow run\\s+\\d+(\\.\\d+)? ms \\((statement|execute)\\)")
                    .containsPattern("temp file\\s+\\d+ bytes");
        } finally {
            api("DELETE", "/api/v1/sources/log-tab", null);
        }
    }

    @Test
    void noLiteralTheWorkloadLoggedReachesTheSinkTheApiTheConsoleOrTheOwnLog(CapturedOutput ownLog) throws Exception {
        String source = "log-corpus";
        var metrics = new StringBuilder();
        EVERY_METRIC.forEach(metric -> metrics.append(metrics.isEmpty() ? "" : ", ").append('"').append(metric).append("\": 1"));
        api("POST", "/api/v1/sources", """
                {"name": "%s", "connStr": "%s", "metrics": {%s}}""".formatted(source, pg.connStr(DATABASE), metrics));
        try (var workload = new LogWorkload(pg, DATABASE, Duration.ofMillis(200))) {
            awaitFirstRead(source);
            CausedEvents caused = workload.causeEveryCategory("console", LogWorkload.CORPUS);
            workload.writeLiteralCorpus();

            // every category arrived, and the corpus's own entries: its unique violation (an e-mail in
            // DETAIL) and its prepared statement's slow run (a parameter in DETAIL), the last it wrote
            JsonNode events = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(
                    () -> events(source, ""), answer -> {
                        Set<String> seen = new HashSet<>();
                        answer.forEach(event -> seen.add(event.get("metric").asString()));
                        return seen.containsAll(EVERY_METRIC) && answer.valueStream().anyMatch(event ->
                                "23505".equals(event.get("values").path("sqlstate").asString(null)))
                                && answer.valueStream().filter(event -> "log_slow_statements".equals(
                                        event.get("metric").asString())).count() >= 2;
                    });
            assertThat(events.valueStream().map(event -> event.get("tags").path("table").asString(null)))
                    .contains(caused.table());
            String answers = api("GET", "/api/v1/sources/" + source + "/log-events?limit=1000", null);
            assertNoLiteral("the API's answer", answers);
            String slowQueryId = events.valueStream().filter(event -> "log_slow_statements".equals(
                    event.get("metric").asString())).findFirst().orElseThrow().get("values").get("queryid").asString();
            assertNoLiteral("the statement's log events", api("GET", "/api/v1/sources/" + source
                    + "/log-events?queryid=" + slowQueryId, null));

            open("#/sources/" + source + "/log");
            awaitText(By.id("log-events"), text -> text.contains("deadlocks") && text.contains("connection failures")
                    && text.contains("slow statements"), Duration.ofSeconds(30));
            assertNoLiteral("the Log tab", browser.driver().getPageSource());
            open("#/sources/" + source + "/queries/" + slowQueryId);
            awaitText(By.id("statement-log-events"), text -> text.contains("slow run"), Duration.ofSeconds(30));
            assertNoLiteral("the statement page", browser.driver().getPageSource());

            await().atMost(Duration.ofSeconds(20)).until(() -> Files.readString(DATA_DIR.resolve("measurements.jsonl"))
                    .contains("\"source\":\"" + source + "\",\"metric\":\"log_connection_failures\""));
            assertNoLiteral("the JSON lines sink", Files.readString(DATA_DIR.resolve("measurements.jsonl")));
            // A line through a reader's logger first shows the capture sees what pgharvest logs.
            LoggerFactory.getLogger("io.pgharvest.serverlog.LogInsightsTail").warn("capture check {}", source);
            assertThat(ownLog.getAll()).contains("capture check " + source);
            assertNoLiteral("pgharvest's own log", ownLog.getAll());
        } finally {
            api("DELETE", "/api/v1/sources/" + source, null);
        }
    }

    /** The first read of a log starts at its end: waits for it before causing events. */
    private void awaitFirstRead(String source) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> JSON.readTree(
                api("GET", "/api/v1/sources/" + source + "/status", null)).findParents("lastSuccess").stream()
                .anyMatch(metric -> "log_errors".equals(metric.path("name").asString())
                        && !metric.get("lastSuccess").isNull()));
    }

    private JsonNode events(String source, String query) {
        return JSON.readTree(api("GET", "/api/v1/sources/" + source + "/log-events?limit=1000" + query, null))
                .get("events");
    }

    private static void assertNoLiteral(String where, String text) {
        assertThat(text).as(where).doesNotContain(LogWorkload.CORPUS, LogWorkload.CORPUS_NUMBER);
    }
}
