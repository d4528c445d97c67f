package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The fleet overview and the source form in a real Chromium against a real PostgreSQL that the
 * test stops and starts: what an operator sees when a server goes away and comes back.
 */
class ConsoleFleetTest extends ConsoleTestBase {

    private static TestPostgres pg;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.of());
        pg.createDatabase("console_db");
    }

    @AfterAll
    static void stopServer() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void aSourceAddedThroughTheFormConnectsShowsItsServerStoppingWithinFiveSecondsAndRecovers() {
        api("POST", "/api/v1/metrics", """
                {"name": "console_ping", "sqls": {"14": "select 1 as up_value"}, "gauges": ["*"]}""");
        open("#/sources/new");
        waitFor(By.id("field-name")).sendKeys("orders-db");
        browser.driver().findElement(By.id("field-connStr")).sendKeys(pg.connStr("console_db"));
        browser.driver().findElement(By.id("field-metrics")).sendKeys("console_ping=1");
        browser.driver().findElement(By.id("field-group")).clear();
        browser.driver().findElement(By.id("field-group")).sendKeys("shop");
        browser.driver().findElement(By.id("test-draft")).click();
        awaitText(By.id("test-outcome"), text -> text.startsWith("Connected"));
        browser.screenshot("source-form");
        browser.driver().findElement(By.id("save")).click();
        awaitText(By.id("source-state"), text -> !text.isBlank());

        open("#/");
        awaitRow("orders-db", "connected", Duration.ofSeconds(15));
        awaitText(By.cssSelector("#fleet tr[data-source='orders-db'] .col-group"), "shop"::equals);
        awaitText(By.cssSelector("#fleet tr[data-source='orders-db'] .col-kind"), "postgres"::equals);
        browser.screenshot("overview");

        // The console's context is shared with the other console tests, whose sources may be
        // disconnected already: the count must grow by this one.
        int disconnectedBefore = disconnectedCount();
        pg.stop();
        long stopped = System.nanoTime();
        String error = browser.waiting(Duration.ofSeconds(5)).until(d -> {
            WebElement r = rowOf("orders-db");
            String text = r == null ? "" : r.findElement(By.className("col-lastError")).getText();
            return r != null && "disconnected".equals(r.getDomAttribute("data-state")) && !text.isBlank() ? text : null;
        });
        assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(Duration.ofSeconds(5));
        assertThat(error).containsIgnoringCase("connect");
        awaitText(By.cssSelector("#state-counts [data-state=disconnected]"),
                text -> text.startsWith(String.valueOf(disconnectedBefore + 1)));
        browser.screenshot("overview-failure");

        pg.start();
        awaitRow("orders-db", "connected", Duration.ofSeconds(60));

        // The source's page: its metric with interval and lane, and a test of the stored connection.
        open("#/sources/orders-db");
        awaitText(By.cssSelector("#source-metrics tr[data-metric=console_ping]"),
                text -> text.contains("1 s") && text.contains("pipeline"));
        waitFor(By.id("test-stored")).click();
        awaitText(By.id("test-outcome"), text -> text.startsWith("Connected"));
        browser.screenshot("source");
    }

    @org.junit.jupiter.api.AfterEach
    void serverRunsAgain() {
        if (!pg.isRunning()) {
            pg.start(); // a failed assertion above must not leave the next test a stopped server
        }
    }

    @Test
    void aSourceToggledOffInlineIsDisabled() {
        api("POST", "/api/v1/sources", """
                {"name": "toggle-me", "connStr": "%s", "preset": "basic"}""".formatted(pg.connStr("console_db")));
        open("#/");
        awaitRow("toggle-me", "connected", Duration.ofSeconds(15)).findElement(By.className("toggle")).click();
        awaitRow("toggle-me", "disabled", Duration.ofSeconds(5));
        assertThat(api("GET", "/api/v1/sources/toggle-me", null)).contains("\"enabled\":false");
    }

    private WebElement awaitRow(String name, String state, Duration timeout) {
        return browser.waiting(timeout).until(d -> {
            WebElement r = rowOf(name);
            return r != null && (state == null || state.equals(r.getDomAttribute("data-state"))) ? r : null;
        });
    }

    /** The overview's count of disconnected sources (no badge: none). */
    private int disconnectedCount() {
        var badges = browser.driver().findElements(By.cssSelector("#state-counts [data-state=disconnected]"));
        if (badges.isEmpty()) {
            return 0;
        }
        String digits = badges.getFirst().getText().replaceAll("^(\\d+).*$", "$1");
        return digits.matches("\\d+") ? Integer.parseInt(digits) : 0;
    }

    private WebElement rowOf(String name) {
        var rows = browser.driver().findElements(By.cssSelector("#fleet tr[data-source='" + name + "']"));
        return rows.isEmpty() ? null : rows.getFirst();
    }
}
