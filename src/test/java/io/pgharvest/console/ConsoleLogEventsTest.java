package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * The source's Log tab and a statement's actual plans, in a real Chromium against a real server
 * writing csvlog with auto_explain: an autovacuum of a table named with markup shows as text, the
 * category filter narrows the list, and the slow statement's page shows its auto_explain plan with
 * actual rows and, from the log, its slow runs and temporary files.
 */
class ConsoleLogEventsTest extends ConsoleTestBase {

    private static final String TABLE = "v<img src=x onerror=window.logXss=1>";
    private static TestPostgres pg;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.ofEntries(Map.entry("logging_collector", "on"),
                Map.entry("log_destination", "csvlog"), Map.entry("lc_messages", "C"),
                Map.entry("log_autovacuum_min_duration", "0"), Map.entry("autovacuum_naptime", "1s"),
                Map.entry("compute_query_id", "on"), Map.entry("shared_preload_libraries", "auto_explain"),
                Map.entry("auto_explain.log_min_duration", "200ms"), Map.entry("auto_explain.log_analyze", "on"),
                Map.entry("auto_explain.log_format", "json"), Map.entry("log_min_duration_statement", "200ms"),
                Map.entry("log_temp_files", "0")));
        pg.createDatabase("consolelog");
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
            String queryid = browser.driver().findElement(By.cssSelector("#log-events tr[data-metric='log_plans'] a"))
                    .getText();
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
}
