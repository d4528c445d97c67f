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
 * test stops and starts: what an operator sees when a server goes away and comes back, and a
 * fleet as operators name it that fits a 1280 px window with its Enabled column in view.
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

    @Test
    void aRealisticFleetFitsA1280PxWindowWithoutScrollingSidewaysAndShowsItsEnabledColumn() {
        // Names, groups and errors as long as real fleets have them: regions, roles and numbers in the
        // name, a database that does not exist (the server's message in Last error), one disabled.
        var names = new java.util.ArrayList<String>();
        for (int i = 1; i <= 5; i++) {
            names.add("orders-eu-central-1-primary-0" + i);
            api("POST", "/api/v1/sources", """
                    {"name": "%s", "connStr": "%s", "group": "payments-production-eu",
                     "metrics": {"db_stats": 1, "db_size": 2, "backends": 1}}"""
                    .formatted(names.getLast(), pg.connStr("console_db")));
        }
        for (int i = 1; i <= 3; i++) {
            names.add("billing-archive-us-east-2-replica-0" + i);
            api("POST", "/api/v1/sources", """
                    {"name": "%s", "connStr": "%s", "group": "billing-archive-standbys", "metrics": {"db_stats": 1}}"""
                    .formatted(names.getLast(), pg.connStr("billing_archive_2019_to_2026_retired_database_" + i)));
        }
        names.add("reporting-analytics-warehouse-disabled");
        api("POST", "/api/v1/sources", """
                {"name": "%s", "connStr": "%s", "group": "analytics", "enabled": false, "preset": "basic"}"""
                .formatted(names.getLast(), pg.connStr("console_db")));
        // one warning firing on the first source, for the Alerts column's badge
        api("POST", "/api/v1/alert-rules", """
                {"name": "fleet-1280-warning", "metric": "backends", "condition": "total > -1", "severity": "warning",
                 "summary": "always", "sources": {"names": ["%s"]}}""".formatted(names.getFirst()));
        try {
            open("#/");
            names.subList(0, 5).forEach(name -> awaitRow(name, "connected", Duration.ofSeconds(20)));
            browser.waiting(Duration.ofSeconds(20)).until(d -> names.subList(5, 8).stream().allMatch(name -> {
                WebElement row = rowOf(name);
                return row != null && !row.findElement(By.className("col-lastError")).getText().isBlank();
            }));
            awaitText(By.cssSelector("#fleet tr[data-source='orders-eu-central-1-primary-01'] .col-sizeBytes"),
                    text -> text.endsWith("B"), Duration.ofSeconds(20));
            assertThat(rowOf("billing-archive-us-east-2-replica-01").findElement(By.className("col-lastError")).getText())
                    .contains("billing_archive_2019_to_2026_retired_database_1");
            browser.screenshot("overview-1280");

            assertThat(browser.driver().executeScript("return window.innerWidth")).isEqualTo(1280L);
            assertThat(browser.driver().executeScript("return document.scrollingElement.scrollWidth + ' <= '"
                    + " + document.scrollingElement.clientWidth + ', table ' + document.querySelector('.table-wrap').scrollWidth"
                    + " + ' <= ' + document.querySelector('.table-wrap').clientWidth"))
                    .asString().matches(widths -> {
                        var n = java.util.Arrays.stream(widths.split("\\D+")).filter(x -> !x.isEmpty())
                                .mapToInt(Integer::parseInt).toArray();
                        return n[0] <= n[1] && n[2] <= n[3];
                    }, "the page and the fleet's table no wider than the window");
            // Every Enabled box (and its header) lies inside the window, not scrolled out of it.
            assertThat(browser.driver().executeScript("""
                    const right = el => el.getBoundingClientRect().right;
                    const header = document.querySelector('table.fleet th[data-key=enabled]');
                    const boxes = [...document.querySelectorAll('#fleet .col-enabled input.toggle')];
                    return boxes.length >= 9 && header.offsetWidth > 0 && right(header) <= window.innerWidth
                        && boxes.every(b => b.offsetWidth > 0 && right(b) <= document.scrollingElement.clientWidth
                            && right(b) <= right(header))""")).isEqualTo(true);
            assertThat(browser.driver().findElement(By.cssSelector("table.fleet th[data-key=enabled]")).getText())
                    .isEqualTo("Enabled");
            // "1 warning" fits its ~7 % column on one line, not clipped or wrapped
            By alerts = By.cssSelector("#fleet tr[data-source='" + names.getFirst() + "'] .col-alerts");
            assertThat(awaitText(alerts, text -> text.contains("warning"), Duration.ofSeconds(20))).isEqualTo("1 warning");
            var measured = ((java.util.List<?>) browser.driver().executeScript("""
                    const td = document.querySelector(arguments[0]), badge = td.querySelector('.badge');
                    const cell = td.getBoundingClientRect(), b = badge.getBoundingClientRect();
                    return [td.scrollWidth, td.clientWidth, b.left, b.right, cell.left, cell.right,
                        badge.getClientRects().length]""", "#fleet tr[data-source='" + names.getFirst() + "'] .col-alerts"))
                    .stream().mapToDouble(x -> ((Number) x).doubleValue()).toArray();
            String widths = java.util.Arrays.toString(measured);
            assertThat(measured[0]).as("no overflow in the Alerts cell: %s", widths).isLessThanOrEqualTo(measured[1]);
            assertThat(measured[2]).as("badge starts inside its cell: %s", widths).isGreaterThanOrEqualTo(measured[4]);
            assertThat(measured[3]).as("badge ends inside its cell: %s", widths).isLessThanOrEqualTo(measured[5]);
            assertThat(measured[6]).as("badge on one line: %s", widths).isEqualTo(1.0);
            // The kind is one word on one line, not broken inside ("postgre" over "s").
            assertThat(browser.driver().executeScript("""
                    return [...document.querySelectorAll('#fleet td.col-kind')].filter(td => td.firstChild).every(td => {
                      const range = document.createRange();
                      range.selectNodeContents(td);
                      return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size === 1;
                    })""")).isEqualTo(true);
        } finally {
            api("DELETE", "/api/v1/alert-rules/fleet-1280-warning", null);
            names.forEach(name -> api("DELETE", "/api/v1/sources/" + name, null));
        }
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
