package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.serverlog.CausedEvents;
import io.pgharvest.serverlog.LogWorkload;
import io.pgharvest.testsupport.TestPostgres;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.prometheus.PrometheusSink;
import io.pgharvest.sink.prometheus.PrometheusSinkProperties;
import io.pgharvest.sink.prometheus.Promtool;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.springframework.beans.factory.annotation.Autowired;
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
 * page, or pgharvest's own log. Both statements of a deadlock list it and their lock waits on their
 * pages, each event's time a link to the page's charts around it.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConsoleLogEventsTest extends ConsoleTestBase {

    /**
     * A table name of markup, ANSI colour codes, a double quote and a backslash: text wherever it is
     * shown, and escaped in the Prometheus exposition.
     */
    private static final String TABLE = "v<img src=x onerror=window.logXss=1>\u001b[31mred\u001b[0m\"q\\b";
    private static final String TABLE_IN_SQL = TABLE.replace("\"", "\"\"");
    private static final String DATABASE = "consolelog";
    private static final Set<String> EVERY_METRIC = Set.of("log_autovacuum", "log_checkpoints", "log_lock_waits",
            "log_deadlocks", "log_temp_files", "log_errors", "log_connection_failures", "log_slow_statements", "log_plans");
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static TestPostgres pg;
    /** The application's metric catalog, as its sinks have it. */
    @Autowired
    MetricCatalog catalog;

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
    void theLogTabListsEventsAsTextAndTheStatementPageShowsItsActualPlan() throws Exception {
        // Literals kept, so the error's message keeps the table's name too: markup must be inert
        // where the operator asked for the texts as the server wrote them.
        api("POST", "/api/v1/sources", """
                {"name": "log-tab", "connStr": "%s", "keepQueryLiterals": true, "metrics": {"log_autovacuum": 1,
                  "log_plans": 1, "log_errors": 1, "log_slow_statements": 1, "log_temp_files": 1}}"""
                .formatted(pg.connStr(DATABASE)));
        try {
            open("#/sources/log-tab");
            browser.driver().findElement(By.id("tab-log")).click();
            // a workload repeated until its events show: the first read of a log starts at its end
            browser.waiting(Duration.ofSeconds(60)).until(d -> {
                pg.execute(DATABASE, "create table if not exists \"" + TABLE_IN_SQL + "\" (id int) with"
                        + " (autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0)");
                pg.execute(DATABASE, "insert into \"" + TABLE_IN_SQL + "\" select generate_series(1, 500);"
                        + " delete from \"" + TABLE_IN_SQL + "\"");
                pg.execute(DATABASE, "set work_mem = '64kB'; select pg_sleep(0.25), count(*) from (select g from"
                        + " generate_series(1, 60000) g order by g desc offset 0) s");
                try {
                    pg.execute(DATABASE, "select * from \"" + TABLE_IN_SQL + "_gone\"");
                } catch (RuntimeException expected) {
                    // relation "…_gone" does not exist: an error message naming the table
                }
                return !rowsNaming(d, "log_autovacuum").isEmpty() && !rowsNaming(d, "log_errors").isEmpty();
            });
            assertThat(rowsNaming(browser.driver(), "log_autovacuum").getFirst().getText())
                    .contains("table=public." + TABLE).contains("buffer_hits=");
            assertThat(rowsNaming(browser.driver(), "log_errors").getFirst().getText())
                    .contains("message=relation \"" + TABLE + "_gone\" does not exist");
            assertThat(rowsNaming(browser.driver(), "log_autovacuum").getFirst().findElement(By.cssSelector("a.at-time"))
                    .getAttribute("href")).as("the time links to the source's charts").contains("#/sources/log-tab?from=");
            assertThat(browser.driver().executeScript("return window.logXss === undefined")).isEqualTo(true);
            assertThat(browser.driver().findElements(By.cssSelector("#view img"))).isEmpty();
            assertPrometheusLabelIsEscaped("log-tab");

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

    /** The Log tab's rows of {@code metric} that name the table of markup. */
    private static List<WebElement> rowsNaming(WebDriver driver, String metric) {
        return driver.findElements(By.cssSelector("#log-events tr[data-metric='" + metric + "']")).stream()
                .filter(row -> row.getText().contains("onerror=window.logXss=1")).toList();
    }

    /**
     * The autovacuum event of the table of markup, as the API has it, through a Prometheus sink on
     * the application's catalog: its {@code table} label is escaped as the text format wants (quote
     * and backslash escaped, the rest, ANSI codes too, as is: label values are any UTF-8), and promtool
     * parses it.
     */
    private void assertPrometheusLabelIsEscaped(String source) throws Exception {
        JsonNode event = events(source, "&category=autovacuum").valueStream()
                .filter(e -> ("public." + TABLE).equals(e.get("tags").path("table").asString(null))).findFirst().orElseThrow();
        var values = new LinkedHashMap<String, Object>();
        event.get("values").properties().forEach(column -> values.put(column.getKey(), column.getValue().isNumber()
                ? column.getValue().numberValue() : column.getValue().isNull() ? null : column.getValue().asString()));
        var tags = new LinkedHashMap<String, String>();
        event.get("tags").properties().forEach(tag -> tags.put(tag.getKey(), tag.getValue().asString()));
        try (var sink = PrometheusSink.create("test", "test", new PrometheusSinkProperties(0, null, "127.0.0.1",
                Duration.ofMinutes(5)), catalog, Clock.systemUTC());
                var http = HttpClient.newHttpClient()) {
            sink.write(List.of(new Measurement(source, "log_autovacuum", Instant.now(),
                    List.of(new Measurement.Row(values, tags)), Map.of())));
            String exposition = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sink.port() + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(exposition).contains("pgharvest_log_autovacuum_buffer_hits{source=\"" + source
                    + "\",table=\"public." + TABLE.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
            Promtool.Check check = Promtool.checkMetrics(exposition);
            // Only a parse failure is of interest here: promtool's lint also names the catalog's column
            // names (elapsed_s: "abbreviated units"), which says nothing about escaping.
            assertThat(check.output()).as("promtool check metrics on%n%s", exposition).doesNotContain("error");
        }
    }

    @Test
    void theStatementPageListsItsLockWaitsAndDeadlocksEachLinkedToItsTimeOnTheCharts() throws Exception {
        String source = "log-locks";
        api("POST", "/api/v1/sources", """
                {"name": "%s", "connStr": "%s", "metrics": {"log_lock_waits": 1, "log_deadlocks": 1}}"""
                .formatted(source, pg.connStr(DATABASE)));
        try (var workload = new LogWorkload(pg, DATABASE, Duration.ofMillis(200))) {
            awaitFirstRead(source, "log_deadlocks");
            long[] deadlock = workload.provokeADeadlock("console_deadlock");

            // B waited past deadlock_timeout, then got its lock once A, the victim, rolled back
            open("#/sources/" + source + "/queries/" + deadlock[3]);
            String waiter = awaitText(By.id("statement-log-events"), text -> text.contains("deadlock")
                    && text.contains("lock wait waiting") && text.contains("lock wait acquired"), Duration.ofSeconds(40));
            assertThat(waiter).containsPattern("lock wait waiting \\w+ on .+ held by " + deadlock[0])
                    .contains("deadlock pid " + deadlock[0] + " against " + deadlock[1]);
            assertEveryRowLinksToItsTimeOnTheCharts(source, deadlock[3]);

            open("#/sources/" + source + "/queries/" + deadlock[2]);
            // A, the victim: its own wait ended by the detection, and the deadlock
            String victim = awaitText(By.id("statement-log-events"), text -> text.contains("deadlock pid")
                    && text.contains("lock wait deadlock_detected"), Duration.ofSeconds(20));
            assertThat(victim).contains("deadlock pid " + deadlock[0] + " against " + deadlock[1]
                    + " (query IDs " + deadlock[3] + ")").containsPattern("held by " + deadlock[1] + "\\b");
            assertEveryRowLinksToItsTimeOnTheCharts(source, deadlock[2]);
        } finally {
            api("DELETE", "/api/v1/sources/" + source, null);
        }
    }

    /**
     * Every row's time links to this statement's page over 15 minutes either side of the event; the
     * link followed, the page's charts show that range.
     */
    private void assertEveryRowLinksToItsTimeOnTheCharts(String source, long queryid) {
        List<WebElement> links = browser.driver().findElements(By.cssSelector("#statement-log-events a.at-time"));
        assertThat(links).hasSize(browser.driver().findElements(By.cssSelector("#statement-log-events tr")).size());
        String first = links.getFirst().getAttribute("href");
        for (WebElement link : links) {
            String href = link.getAttribute("href");
            Instant at = java.time.OffsetDateTime.parse(link.findElement(By.tagName("time")).getAttribute("datetime"))
                    .toInstant();
            assertThat(href).contains("#/sources/" + source + "/queries/" + queryid + "?from=");
            var range = new java.util.HashMap<String, Instant>();
            for (String pair : href.substring(href.indexOf('?') + 1).split("&")) {
                String[] parts = pair.split("=", 2);
                range.put(parts[0], Instant.parse(java.net.URLDecoder.decode(parts[1], java.nio.charset.StandardCharsets.UTF_8)));
            }
            assertThat(Duration.between(range.get("from"), at).toMillis()).isBetween(899_000L, 901_000L);
            assertThat(Duration.between(at, range.get("to")).toMillis()).isBetween(899_000L, 901_000L);
        }
        links.getFirst().click();
        browser.waiting(Duration.ofSeconds(10)).until(d -> d.getCurrentUrl().contains("?from="));
        assertThat(waitFor(By.id("statement-range")).getAttribute("value")).isEqualTo("custom");
        assertThat(browser.driver().getCurrentUrl()).endsWith(first.substring(first.indexOf('#')));
    }

    /** The first read of a log starts at its end: waits for it before causing events. */
    private void awaitFirstRead(String source) {
        awaitFirstRead(source, "log_errors");
    }

    private void awaitFirstRead(String source, String metricName) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> JSON.readTree(
                api("GET", "/api/v1/sources/" + source + "/status", null)).findParents("lastSuccess").stream()
                .anyMatch(metric -> metricName.equals(metric.path("name").asString())
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
