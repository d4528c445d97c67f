package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

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

    /** No {@code pgharvest.console.grafana-url} in this application: no link (ConsoleGrafanaLinkTest has one). */
    @Test
    void withoutAGrafanaAddressTheSourcePageHasNoDashboardLink() {
        api("POST", "/api/v1/sources", """
                {"name": "no-grafana", "connStr": "postgresql://monitor@127.0.0.1:1/x", "enabled": false, "preset": "basic"}""");
        open("#/sources/no-grafana");
        // the page marks its dashboards read, links or none
        browser.waiting(Duration.ofSeconds(10)).until(d -> !d.findElements(By.cssSelector("#dashboards[data-read]")).isEmpty());
        assertThat(browser.driver().findElements(By.id("grafana-link"))).isEmpty();
        assertThat(api("GET", "/api/v1/sources/no-grafana/dashboards", null)).isEqualTo("[]");
    }

    /**
     * 30 sources at a closed port each log "connection refused": the log view shows that once, as
     * one cause with the sources it concerns counted, and lists them on demand.
     */
    @Test
    void theLogShowsOneLinePerCauseWithItsSourcesCountedAndListedOnDemand() {
        open("#/logs");
        waitFor(By.id("log-level"));
        for (int i = 1; i <= 30; i++) {
            api("POST", "/api/v1/sources", """
                    {"name": "log-flood-%d", "connStr": "postgresql://monitor@127.0.0.1:1/flood_%d", "preset": "basic"}"""
                    .formatted(i, i));
        }
        // A cause keeps the text of its first line, with numbers in it: in the full suite an earlier
        // source refused on another port may have written it first, so match the words only.
        String refused = "refused. Check that the hostname and port are correct";
        var cause = browser.waiting(Duration.ofSeconds(60)).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> d.findElements(By.cssSelector("#log-lines li")).stream()
                        .filter(li -> li.getText().contains(refused))
                        .filter(li -> !li.findElements(By.cssSelector("button.cause-sources")).isEmpty()
                                && Integer.parseInt(li.findElement(By.cssSelector("button.cause-sources")).getText()
                                        .replaceAll("\\D", "")) >= 30)
                        .findFirst().orElse(null));
        // one line for the cause, however many sources and attempts it has
        assertThat(browser.driver().findElements(By.cssSelector("#log-lines li")).stream()
                .filter(li -> li.getText().contains(refused)).count()).isEqualTo(1);
        assertThat(cause.getText()).containsPattern("\\d+ sources");
        browser.screenshot("log-causes");

        cause.findElement(By.cssSelector("button.cause-sources")).click();
        String listed = awaitText(By.cssSelector("#log-lines .cause-source-list"), text -> text.contains("log-flood-30"));
        for (int i = 1; i <= 30; i++) {
            assertThat(listed.lines()).contains("log-flood-" + i);
        }
        String id = browser.driver().findElement(By.cssSelector("#log-lines li:has(.cause-source-list)"))
                .getDomAttribute("data-cause");
        assertThat(api("GET", "/api/v1/logs/causes/" + id + "/sources", null)).contains("\"log-flood-17\"");
        for (int i = 1; i <= 30; i++) {
            api("DELETE", "/api/v1/sources/log-flood-" + i, null);
        }
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

    @Test
    void theMetricsPageCountsTheUsingSourcesAndLinksToTheOverviewFilteredToThem() {
        api("POST", "/api/v1/metrics", """
                {"name": "counted_metric", "sqls": {"14": "select 1 as v"}}""");
        for (String name : new String[] {"count-a", "count-b", "count-c"}) {
            api("POST", "/api/v1/sources", """
                    {"name": "%s", "connStr": "postgresql://monitor@127.0.0.1:1/x", "enabled": false,
                     "metrics": {"counted_metric": 60}}""".formatted(name));
        }
        api("POST", "/api/v1/sources", """
                {"name": "count-other", "connStr": "postgresql://monitor@127.0.0.1:1/x", "enabled": false, "preset": "basic"}""");
        open("#/metrics");
        waitFor(By.id("catalog-search")).sendKeys("counted_metric");
        String cell = awaitText(By.cssSelector("#metrics-list tr[data-name=counted_metric] td[data-label='Used by']"),
                text -> !text.isBlank());
        assertThat(cell).isEqualTo("3 sources");
        browser.driver().findElement(By.cssSelector("#metrics-list tr[data-name=counted_metric] td[data-label='Used by'] a"))
                .click();
        browser.waiting(Duration.ofSeconds(10)).until(d -> d.findElements(By.cssSelector("#fleet tr[data-source]")).size() == 3);
        assertThat(browser.driver().findElements(By.cssSelector("#fleet tr[data-source]")).stream()
                .map(row -> row.getDomAttribute("data-source")).toList()).containsExactly("count-a", "count-b", "count-c");
        assertThat(browser.driver().findElement(By.id("using-filter")).getText()).contains("counted_metric");
    }

    @Test
    void aSourceWithoutPresetOrIntervalsIsFlaggedBeforeAndAfterSaving() {
        open("#/sources/new");
        waitFor(By.id("field-name")).sendKeys("collects-nothing");
        browser.driver().findElement(By.id("field-connStr")).sendKeys("postgresql://monitor@127.0.0.1:1/x");
        browser.driver().findElement(By.id("save")).click();
        String warning = awaitText(By.id("error-preset"), text -> !text.isBlank());
        assertThat(warning).contains("collect nothing");
        assertThat(browser.driver().switchTo().activeElement().getDomAttribute("id")).isEqualTo("field-preset");
        assertThat(http("GET", "/api/v1/sources/collects-nothing", TOKEN, null).statusCode()).isEqualTo(404);
        browser.driver().findElement(By.id("save-anyway")).click();
        awaitText(By.id("collects-nothing"), text -> text.contains("collects nothing"));
    }

    @Test
    void theFormDescribesTheChosenKindsConnectionStringAndAKindThatAddsMetricsNeedsNoPreset() {
        open("#/sources/new");
        WebElement connStr = waitFor(By.id("field-connStr"));
        assertThat(connStr.getDomAttribute("placeholder")).startsWith("postgresql://");
        assertThat(awaitText(By.id("hint-connStr"), text -> !text.isBlank())).contains("libpq key=value");

        new org.openqa.selenium.support.ui.Select(browser.driver().findElement(By.id("field-kind"))).selectByValue("patroni");
        assertThat(connStr.getDomProperty("placeholder")).startsWith("etcd://");
        assertThat(browser.driver().findElement(By.id("hint-connStr")).getText()).contains("etcd://").contains("namespace");

        browser.driver().findElement(By.id("field-name")).sendKeys("adds-metrics");
        connStr.sendKeys("etcd://127.0.0.1:1/service/demo?user=monitor");
        browser.driver().findElement(By.id("save")).click();
        awaitText(By.id("source-state"), text -> !text.isBlank());
        assertThat(http("GET", "/api/v1/sources/adds-metrics", TOKEN, null).statusCode()).isEqualTo(200);
        assertThat(browser.driver().findElements(By.id("collects-nothing"))).isEmpty();
        api("DELETE", "/api/v1/sources/adds-metrics", null);
    }

    @Test
    void aBadYamlImportSaysWhatIsWrongInTheUsersTermsNotTheParsers() throws Exception {
        String[] files = {
            "- name: bad-flag\n  conn_str: postgresql://monitor@127.0.0.1:1/app\n  is_enabled: maybe\n",
            "- name: bad-type\n  conn_str: postgresql://monitor@127.0.0.1:1/app\n  custom_tags: [a, b]\n",
            "just some text\n",
            "- name: [unclosed\n",
        };
        open("#/import");
        for (String content : files) {
            java.nio.file.Path file = java.nio.file.Files.createTempFile("bad-import", ".yaml");
            java.nio.file.Files.writeString(file, content);
            try {
                open("#/metrics");
                open("#/import");
                waitFor(By.id("field-body")).sendKeys(file.toString());
                browser.driver().findElement(By.id("dry-run")).click();
                String said = awaitText(By.id("error-body"), text -> !text.isBlank());
                assertThat(said).as(content).contains("line")
                        .doesNotContain("io.pgharvest").doesNotContain("java.").doesNotContain("JsonToken")
                        .doesNotContain("START_").doesNotContain("VALUE_").doesNotContain("`").doesNotContain("class ")
                        .doesNotContain("deserialize");
            } finally {
                java.nio.file.Files.deleteIfExists(file);
            }
        }
    }

    @Test
    void aDuplicateNameIsShownAtTheNameFieldWhichGetsTheFocus() {
        api("POST", "/api/v1/sources", """
                {"name": "taken-name", "connStr": "postgresql://monitor@127.0.0.1:1/x", "enabled": false, "preset": "basic"}""");
        browser.resize(1280, 500);
        try {
            open("#/sources/new");
            waitFor(By.id("field-name")).sendKeys("taken-name");
            browser.driver().findElement(By.id("field-connStr")).sendKeys("postgresql://monitor@127.0.0.1:1/x");
            new org.openqa.selenium.support.ui.Select(browser.driver().findElement(By.id("field-preset"))).selectByValue("basic");
            browser.driver().findElement(By.id("save")).click();
            String said = awaitText(By.id("error-name"), text -> !text.isBlank());
            assertThat(said).contains("already exists");
            assertThat(browser.driver().switchTo().activeElement().getDomAttribute("id")).isEqualTo("field-name");
            assertThat(script("const r = document.getElementById('error-name').getBoundingClientRect();"
                    + " return r.top >= 0 && r.bottom <= window.innerHeight")).isEqualTo(true);
        } finally {
            browser.resize(1280, 900);
        }
    }

    @Test
    void builtInMetricsOfferNoDeleteButtonAndOverriddenOnesOfferToRevert() {
        open("#/metrics");
        waitFor(By.id("catalog-search")).sendKeys("db_stats");
        var row = browser.waiting(Duration.ofSeconds(10)).until(d -> d.findElements(
                By.cssSelector("#metrics-list tr[data-name=db_stats]")).stream().findFirst().orElse(null));
        assertThat(row.findElements(By.cssSelector("button.danger"))).isEmpty();
        assertThat(row.getText()).doesNotContain("Delete");
    }

    @Test
    void tickSoloLaneAndPipelineAreExplainedWhereTheyAppear() {
        ticking("explained");
        open("#/");
        awaitText(By.cssSelector("#fleet tr[data-source=explained] .col-state"), "connected"::equals);
        assertThat(browser.driver().findElement(By.cssSelector("th[data-key=soloMetrics] button")).getDomAttribute("title"))
                .contains("on its own");
        assertThat(browser.driver().findElement(By.cssSelector("th[data-key=lastTickDuration] button")).getDomAttribute("title"))
                .contains("round");
        assertThat(browser.driver().findElement(By.id("glossary")).getDomProperty("textContent"))
                .contains("Tick").contains("Pipeline").contains("Solo lane");
        open("#/sources/explained");
        var lane = browser.waiting(Duration.ofSeconds(15)).until(d -> d.findElements(
                By.cssSelector("#source-metrics tr[data-metric=first_use_ping] td[data-label=Lane]")).stream()
                .filter(td -> "pipeline".equals(td.getText())).findFirst().orElse(null));
        assertThat(lane.getDomAttribute("title")).contains("one round trip");
    }

    @Test
    void theDisconnectedBadgeNeverBreaksMidWord() {
        api("POST", "/api/v1/sources", """
                {"name": "badge-check", "connStr": "postgresql://monitor@127.0.0.1:1/x", "preset": "basic"}""");
        browser.resize(900, 900);
        try {
            open("#/");
            awaitText(By.cssSelector("#fleet tr[data-source=badge-check] .col-state"), "disconnected"::equals);
            assertThat(script("""
                    const badge = document.querySelector('#fleet tr[data-source=badge-check] .col-state .badge');
                    const range = document.createRange(); range.selectNodeContents(badge);
                    return range.getClientRects().length""")).isEqualTo(1L);
        } finally {
            browser.resize(1280, 900);
        }
    }

    @Test
    void theSinksPageNamesEachSinksDestination() {
        open("#/sinks");
        String destination = awaitText(By.cssSelector("#sinks tr[data-sink] td[data-label=Destination]"),
                text -> !text.isBlank());
        assertThat(destination).endsWith("measurements.jsonl").startsWith(DATA_DIR.toAbsolutePath().toString());
    }
}
