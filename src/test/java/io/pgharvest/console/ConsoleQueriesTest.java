package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import tools.jackson.databind.JsonNode;

/**
 * The queries view in a real Chromium against a real PostgreSQL with pg_stat_statements: a slow
 * statement run on the database shows among the source's top statements with its calls and mean
 * time, and its own page charts it and shows the samples that caught it waiting; markup in a
 * statement stays text. A new source's statements show their texts by its second read of
 * query_stats, while query_texts' own turn is 10 minutes away.
 */
class ConsoleQueriesTest extends ConsoleTestBase {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "console_queries_db";
    private static final String TEXTS_DB = "console_first_texts_db";
    private static final String SLOW = "select /* <img src=x onerror=window.xssFired=1> */ pg_sleep(0.2)";

    @BeforeAll
    static void database() throws Exception {
        pg.createDatabase(DB);
        try (Connection c = pg.connect(DB); Statement s = c.createStatement()) {
            s.execute("create extension if not exists pg_stat_statements");
            // pgharvest collects as a pg_monitor role, as in production: its own statements are
            // left out of query_stats, the workload (postgres) is not.
            s.execute("do $$ begin if not exists (select from pg_roles where rolname = 'queries_monitor')"
                    + " then create role queries_monitor login in role pg_monitor; end if; end $$");
        }
        pg.createDatabase(TEXTS_DB);
        pg.execute(TEXTS_DB, "create extension if not exists pg_stat_statements");
    }

    @Test
    void aNewSourcesStatementsShowTheirTextsByItsSecondReadNotAtQueryTextsNextTurn() throws Exception {
        int every = 5;
        // query_texts as the standard preset has it (every 600 s): only its first turn falls in the test.
        api("POST", "/api/v1/sources", """
                {"name": "first-texts", "connStr": "%s", "metrics": {"query_stats": %d, "query_texts": 600}}"""
                .formatted(pg.connStr(TEXTS_DB).replace("postgres@", "queries_monitor@"), every));
        try {
            open("#/sources/first-texts/queries");
            // The first read (query_stats' baseline and query_texts' first turn) before the statement exists.
            java.time.Instant firstRead = browser.waiting(Duration.ofSeconds(30)).until(d -> {
                JsonNode metrics = io.pgharvest.api.ApiClient.JSON.readTree(api("GET", "/api/v1/sources/first-texts/status", null))
                        .path("runtime").path("metrics");
                var done = metrics.valueStream().filter(m -> m.path("lastSuccess").isString()).map(m -> m.get("name").asString()).toList();
                return done.contains("query_stats") && done.contains("query_texts")
                        ? java.time.Instant.parse(metrics.valueStream().filter(m -> m.get("name").asString()
                                .equals("query_stats")).findFirst().orElseThrow().get("lastSuccess").asString())
                        : null;
            });
            try (Connection c = pg.connect(TEXTS_DB); Statement s = c.createStatement()) {
                for (int i = 0; i < 3; i++) {
                    s.execute("select " + i + " as first_read_text_shown");
                }
            }
            By cell = By.cssSelector("#statements td.statement code");
            String shown = awaitText(cell, t -> t.contains("first_read_text_shown"), Duration.ofSeconds(3L * every));
            java.time.Instant seen = java.time.Instant.now();
            assertThat(shown).isEqualTo("select $1 as first_read_text_shown");
            // Seen before the third read was due: the second read (the first to count its calls) brought the text.
            assertThat(seen).isBefore(firstRead.plusSeconds(2L * every));
            assertThat(browser.driver().findElement(By.id("statements")).getText()).doesNotContain("text not read yet");
        } finally {
            api("DELETE", "/api/v1/sources/first-texts", null);
        }
    }

    @Test
    void aSlowStatementShowsInTheQueriesViewWithItsCallsAndMeanTimeAndItsPageChartsIt() throws Exception {
        api("POST", "/api/v1/sources", """
                {"name": "queries-db", "connStr": "%s", "metrics": {"query_stats": 2, "query_samples": 1, "query_texts": 2}}"""
                .formatted(pg.connStr(DB).replace("postgres@", "queries_monitor@")));
        // the first read is the baseline: wait for it before the statement runs
        browser.waiting(Duration.ofSeconds(20)).until(d -> api("GET", "/api/v1/sources/queries-db/status", null)
                .contains("\"lastSuccess\":\"20"));
        // five short calls, and one of 3 s beside them that the 1 s samples catch waiting (PgSleep)
        Thread longCall = Thread.ofVirtual().start(() -> {
            try (Connection c = pg.connect(DB); Statement s = c.createStatement()) {
                s.execute(SLOW.replace("0.2", "3.0")); // numeric like 0.2: the same query id
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        try (Connection c = pg.connect(DB); Statement s = c.createStatement()) {
            for (int i = 0; i < 5; i++) {
                s.execute(SLOW);
            }
        }
        longCall.join();
        String queryid;
        try (Connection c = pg.connect(DB); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select queryid from pg_stat_statements where query like '%xssFired%pg_sleep%'")) {
            assertThat(r.next()).isTrue();
            queryid = r.getString(1);
        }

        open("#/sources/queries-db/queries");
        By row = By.cssSelector("#statements tr[data-queryid='" + queryid + "']");
        WebElement calls = browser.waiting(Duration.ofSeconds(15)).until(d -> d.findElements(row).isEmpty() ? null
                : d.findElement(row).findElement(By.cssSelector(".col-calls")));
        browser.waiting(Duration.ofSeconds(10)).until(d -> d.findElement(row).findElement(By.cssSelector(".col-calls"))
                .getText().equals("6"));
        String mean = browser.driver().findElement(row).findElement(By.cssSelector(".col-meanExecTime")).getText();
        assertThat(mean).endsWith("ms");
        assertThat(Double.parseDouble(mean.replace(" ms", ""))).isBetween(600.0, 900.0); // (5 x 0.2 s + 3 s) / 6
        assertThat(browser.driver().findElement(row).findElement(By.cssSelector("td[data-label=Database]")).getText())
                .isEqualTo(DB);
        browser.screenshot("queries");

        browser.driver().findElement(row).findElement(By.cssSelector("a")).click();
        awaitText(By.cssSelector("#view h1"), ("Statement " + queryid)::equals);
        // the normalized text from query_texts: the constant is $1
        String statementText = awaitText(By.id("statement-text"), t -> t.contains("pg_sleep"));
        assertThat(statementText).contains("pg_sleep($1)").doesNotContain("0.2");
        browser.waiting(Duration.ofSeconds(10)).until(d -> d.findElements(By.cssSelector("figure[data-chart=mean]")).size() == 1
                && Integer.parseInt(d.findElement(By.cssSelector("figure[data-chart=mean]")).getAttribute("data-points")) >= 1);
        assertThat(Double.parseDouble(browser.driver().findElement(By.cssSelector("figure[data-chart=mean]"))
                .getAttribute("data-last"))).isBetween(195.0, 3100.0);
        String waited = awaitText(By.cssSelector("#statement-samples tr .wait-event"), text -> !text.isBlank());
        assertThat(waited).isEqualTo("Timeout: PgSleep");
        browser.screenshot("statement");
        assertThat(browser.driver().executeScript("return window.xssFired === undefined")).isEqualTo(true);
        assertThat(browser.driver().findElements(By.cssSelector("#view img"))).isEmpty();
    }
}
