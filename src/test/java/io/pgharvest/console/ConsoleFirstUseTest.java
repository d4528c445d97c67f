package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * What a first-time user tripped over in the console (issue 37's list), one test per defect, each
 * written to fail before its fix, in Chromium against the real application and a real PostgreSQL.
 */
class ConsoleFirstUseTest extends ConsoleTestBase {

    private static TestPostgres pg;

    @BeforeAll
    static void server() {
        pg = TestPostgres.shared();
        pg.createDatabase("first_use_db");
    }

    @AfterEach
    void backOnline() {
        collectorAnswers(true);
    }

    /** Makes the browser's API requests fail as if the collector were gone (Chromium's request blocking), or not. */
    private static void collectorAnswers(boolean answers) {
        browser.driver().executeCdpCommand("Network.enable", Map.of());
        browser.driver().executeCdpCommand("Network.setBlockedURLs",
                Map.of("urls", answers ? java.util.List.of() : java.util.List.of("*/api/v1/*")));
    }

    /** A source collected every second, so its entry changes with every answer of the live queries. */
    private void ticking(String name) {
        if (http("GET", "/api/v1/metrics/first_use_ping", TOKEN, null).statusCode() == 404) {
            api("POST", "/api/v1/metrics", """
                    {"name": "first_use_ping", "sqls": {"14": "select 1 as up_value"}, "gauges": ["*"]}""");
        }
        api("POST", "/api/v1/sources", """
                {"name": "%s", "connStr": "%s", "metrics": {"first_use_ping": 1}}""".formatted(name,
                pg.connStr("first_use_db")));
    }

    private Object script(String js, Object... args) {
        return browser.driver().executeScript(js, args);
    }

    /** Waits until the text of the element at {@code selector} changed {@code times} times. */
    private void awaitChanges(String selector, int times) {
        String[] last = {null};
        int[] seen = {-1};
        browser.waiting(Duration.ofSeconds(30)).until(d -> {
            String now = String.valueOf(script("return document.querySelector(arguments[0])?.getAttribute('datetime')",
                    selector));
            if (!now.equals(last[0])) {
                last[0] = now;
                seen[0]++;
            }
            return seen[0] >= times;
        });
    }

    @Test
    void theLiveOverviewKeepsTheFocusedLinkAndCheckboxAndTheRowsItDidNotChange() {
        ticking("focus-kept");
        open("#/");
        awaitText(By.cssSelector("#fleet tr[data-source=focus-kept] .col-state"), "connected"::equals);
        script("""
                const row = document.querySelector('#fleet tr[data-source=focus-kept]');
                window.keptRow = row; window.keptLink = row.querySelector('a'); window.keptToggle = row.querySelector('.toggle');
                window.keptLink.focus();""");
        awaitChanges("#fleet tr[data-source=focus-kept] .col-lastTickStart time", 2);
        assertThat(script("return document.activeElement === window.keptLink && window.keptLink.isConnected")).isEqualTo(true);
        script("window.keptToggle.focus()");
        awaitChanges("#fleet tr[data-source=focus-kept] .col-lastTickStart time", 2);
        assertThat(script("return document.activeElement === window.keptToggle && window.keptToggle.isConnected"))
                .isEqualTo(true);
        assertThat(script("return window.keptRow === document.querySelector('#fleet tr[data-source=focus-kept]')"))
                .isEqualTo(true);
    }

    @Test
    void theLiveSourcePageKeepsTheNodesWhoseDataDidNotChange() {
        ticking("nodes-kept");
        open("#/sources/nodes-kept");
        awaitText(By.id("source-state"), "connected"::equals);
        script("window.keptBadge = document.getElementById('source-state');"
                + " window.keptMetric = document.querySelector('#source-metrics tr[data-metric=first_use_ping]');");
        awaitChanges("#source-metrics tr[data-metric=first_use_ping] td[data-label='Last success'] time", 2);
        assertThat(script("return window.keptBadge === document.getElementById('source-state')")).isEqualTo(true);
        assertThat(script("return window.keptMetric === document.querySelector("
                + "'#source-metrics tr[data-metric=first_use_ping]')")).isEqualTo(true);
    }

    @Test
    void whileTheCollectorDoesNotAnswerThePageSaysItsDataIsStaleSinceWhenAndClearsWhenItIsBack() {
        ticking("outage-watch");
        open("#/");
        awaitText(By.cssSelector("#fleet tr[data-source=outage-watch] .col-state"), "connected"::equals);
        assertThat(browser.driver().findElement(By.id("stale-banner")).isDisplayed()).isFalse();
        collectorAnswers(false);
        // The open long-poll comes back within its 10 s wait; the next request fails.
        String said = browser.waiting(Duration.ofSeconds(30)).until(d -> {
            String text = d.findElement(By.id("stale-banner")).getText();
            return text.contains("not answering") ? text : null;
        });
        assertThat(said).contains("since");
        assertThat(browser.driver().findElement(By.id("view")).getDomAttribute("class")).contains("stale");
        browser.screenshot("collector-outage");
        collectorAnswers(true);
        browser.waiting(Duration.ofSeconds(30)).until(d -> !d.findElement(By.id("stale-banner")).isDisplayed());
        assertThat(String.valueOf(browser.driver().findElement(By.id("view")).getDomAttribute("class")))
                .doesNotContain("stale");
    }

    @Test
    void theSourcePageShowsAConfigurationChangeMadeElsewhereWithoutAReload() {
        api("POST", "/api/v1/sources", """
                {"name": "reread", "connStr": "postgresql://monitor@127.0.0.1:1/x", "enabled": false, "preset": "basic",
                 "group": "first-group"}""");
        open("#/sources/reread");
        awaitText(By.id("source-config"), text -> text.contains("first-group"));
        String source = api("GET", "/api/v1/sources/reread", null);
        api("PUT", "/api/v1/sources/reread", source.replace("first-group", "second-group")
                .replaceAll(",\"modifyIndex\":\\d+", ""));
        awaitText(By.id("source-config"), text -> text.contains("second-group"));
    }
}
