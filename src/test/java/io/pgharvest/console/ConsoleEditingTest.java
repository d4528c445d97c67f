package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.slf4j.LoggerFactory;

/**
 * Editing through the console: field errors from the API's problem details, names that carry
 * markup staying text, a pgwatch import with its dry run, the live log view, the sinks page and
 * the narrow (390 px) layout.
 */
class ConsoleEditingTest extends ConsoleTestBase {

    private static final String XSS_IMG = "<img src=x onerror=window.xssFired=1>";
    private static final String XSS_SCRIPT = "<script>window.xssFired=2</script>";

    @Test
    void aMetricWithASqlErrorShowsTheErrorNextToItsSqlAndIsNotCreated() {
        open("#/metrics");
        waitFor(By.id("create")).click();
        waitFor(By.id("field-name")).sendKeys("console_bad");
        browser.driver().findElement(By.id("field-sqls.14")).sendKeys("delete from pg_class");
        browser.driver().findElement(By.id("save")).click();
        awaitText(By.id("error-sqls.14"), text -> text.contains("reading statement"));
        assertThat(browser.driver().findElement(By.id("field-sqls.14")).getDomAttribute("aria-invalid")).isEqualTo("true");
        browser.screenshot("metric-field-error");
        assertThat(http("GET", "/api/v1/metrics/console_bad", TOKEN, null).statusCode()).isEqualTo(404);

        browser.driver().findElement(By.id("field-sqls.14")).clear();
        browser.driver().findElement(By.id("field-sqls.14")).sendKeys("select 1 as up_value");
        browser.driver().findElement(By.id("save")).click();
        browser.waiting(Duration.ofSeconds(5)).until(d -> !d.findElements(By.cssSelector("tr[data-name=console_bad]")).isEmpty());
        assertThat(api("GET", "/api/v1/metrics/console_bad", null)).contains("select 1 as up_value");
    }

    @Test
    void namesTagsAndDescriptionsWithMarkupStayInertText() {
        api("POST", "/api/v1/sources", """
                {"name": "xss-source", "connStr": "postgresql://monitor:s3cret@127.0.0.1:1/x", "group": "%s",
                 "enabled": false, "preset": "basic", "tags": {"note": "%s"}}""".formatted(XSS_IMG, XSS_SCRIPT));
        api("POST", "/api/v1/metrics", """
                {"name": "xss_metric", "description": "%s", "sqls": {"14": "select 1 as v"}}""".formatted(XSS_IMG));
        open("#/");
        awaitText(By.cssSelector("#fleet tr[data-source=xss-source] .col-group"), XSS_IMG::equals);
        open("#/sources/xss-source");
        browser.waiting(Duration.ofSeconds(5)).until(d -> d.findElement(By.id("view")).getText().contains(XSS_SCRIPT));
        String page = browser.driver().findElement(By.id("view")).getText();
        assertThat(page).contains("postgresql://monitor:********@127.0.0.1:1/x").doesNotContain("s3cret");
        open("#/metrics");
        waitFor(By.id("catalog-search")).sendKeys("xss_metric");
        browser.waiting(Duration.ofSeconds(5)).until(d -> d.findElement(By.id("metrics-list")).getText().contains(XSS_IMG));
        assertThat(browser.driver().findElements(By.cssSelector("#view img, #view script"))).isEmpty();
        assertThat(browser.driver().executeScript("return window.xssFired === undefined")).isEqualTo(true);
    }

    @Test
    void aPgwatchSourcesFileIsDryRunThenApplied() throws IOException {
        Path file = Files.createTempFile("console-pgwatch-sources", ".yaml");
        Files.writeString(file, """
                - name: from-pgwatch
                  conn_str: postgresql://monitor@127.0.0.1:1/app
                  kind: postgres
                  preset_metrics: basic
                  is_enabled: false
                """);
        try {
            open("#/import");
            waitFor(By.id("field-body")).sendKeys(file.toString());
            browser.driver().findElement(By.id("dry-run")).click();
            awaitText(By.id("import-summary"), text -> text.startsWith("Would create 1"));
            assertThat(browser.driver().findElement(By.id("import-report")).getText()).contains("from-pgwatch");
            assertThat(http("GET", "/api/v1/sources/from-pgwatch", TOKEN, null).statusCode()).isEqualTo(404);
            browser.screenshot("import-dry-run");
            browser.driver().findElement(By.id("apply")).click();
            browser.waiting(Duration.ofSeconds(5)).until(d -> d.findElement(By.id("import-summary")).getText()
                    .startsWith("Created 1"));
            assertThat(api("GET", "/api/v1/sources/from-pgwatch", null)).contains("\"enabled\":false");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void theLogViewShowsNewLinesLiveWithSecretsMasked() {
        open("#/logs");
        waitFor(By.id("log-level"));
        LoggerFactory.getLogger("io.pgharvest.console.test").warn(
                "console-log-marker postgresql://monitor:hunter2@db1/app password=hunter2 Bearer {}", TOKEN);
        WebElement line = browser.waiting(Duration.ofSeconds(2)).until(d -> d.findElements(By.cssSelector("#log-lines li"))
                .stream().filter(li -> li.getText().contains("console-log-marker")).findFirst().orElse(null));
        assertThat(line.getText()).contains("WARN").contains("monitor:********@db1").doesNotContain("hunter2")
                .doesNotContain(TOKEN);
        browser.screenshot("logs");
        browser.driver().findElement(By.id("log-level")).sendKeys("ERROR");
        browser.waiting(Duration.ofSeconds(5)).until(d -> d.findElement(By.id("log-lines")).getText()
                .lines().noneMatch(text -> text.contains("console-log-marker")));
    }

    @Test
    void aSourceIsCopiedWithANewPasswordAndDeletedAfterConfirmation() {
        api("POST", "/api/v1/sources", """
                {"name": "copy-me", "connStr": "postgresql://monitor:first-secret@127.0.0.1:1/app", "enabled": false,
                 "preset": "basic", "tags": {"env": "test"}, "keepQueryLiterals": true}""");
        open("#/sources/copy-me");
        waitFor(By.linkText("Copy")).click();
        browser.waiting(Duration.ofSeconds(5)).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .until(d -> "copy-me-copy".equals(d.findElement(By.id("field-name")).getDomProperty("value")));
        assertThat(browser.driver().findElement(By.id("field-connStr")).getDomProperty("value"))
                .isEqualTo("postgresql://monitor:********@127.0.0.1:1/app");
        browser.driver().findElement(By.id("save")).click();
        awaitText(By.id("error-connStr"), text -> text.contains("********"));
        browser.driver().findElement(By.id("field-password")).sendKeys("second-secret");
        browser.driver().findElement(By.id("save")).click();
        awaitText(By.cssSelector("#view h1"), "copy-me-copy"::equals);
        assertThat(api("GET", "/api/v1/sources/copy-me-copy", null)).contains("\"env\":\"test\"")
                .contains("\"keepQueryLiterals\":true") // the form sends back the opt-in it was shown
                .doesNotContain("second-secret");

        assertThat(browser.driver().findElement(By.id("confirm-delete")).isDisplayed()).isFalse();
        browser.driver().findElement(By.id("delete")).click();
        assertThat(http("GET", "/api/v1/sources/copy-me-copy", TOKEN, null).statusCode()).isEqualTo(200);
        waitFor(By.id("confirm-delete")).click();
        browser.waiting(Duration.ofSeconds(5)).until(d -> d.getCurrentUrl().endsWith("#/"));
        assertThat(http("GET", "/api/v1/sources/copy-me-copy", TOKEN, null).statusCode()).isEqualTo(404);
        assertThat(http("GET", "/api/v1/sources/copy-me", TOKEN, null).statusCode()).isEqualTo(200);
    }

    @Test
    void presetsAndMetricsShowWhichSourcesUseThem() {
        api("POST", "/api/v1/metrics", """
                {"name": "console_used", "sqls": {"14": "select 1 as v"}}""");
        api("POST", "/api/v1/presets", """
                {"name": "console_preset", "metrics": {"console_used": 30}}""");
        api("POST", "/api/v1/sources", """
                {"name": "preset-user", "connStr": "postgresql://monitor@127.0.0.1:1/x", "enabled": false,
                 "preset": "console_preset"}""");
        open("#/presets");
        waitFor(By.id("catalog-search")).sendKeys("console_preset");
        awaitText(By.cssSelector("#presets-list tr[data-name=console_preset] td[data-label='Used by']"),
                "1 source"::equals);
        open("#/metrics");
        waitFor(By.id("catalog-search")).sendKeys("console_used");
        awaitText(By.cssSelector("#metrics-list tr[data-name=console_used] td[data-label='Used by']"),
                "1 source"::equals);
    }

    @Test
    void theSinksPageShowsEachSinksDeliveryState() {
        open("#/sinks");
        awaitText(By.cssSelector("#sinks tr[data-sink] td[data-label=Type]"), "jsonfile"::equals);
        awaitText(By.cssSelector("#sinks tr[data-sink] td[data-label=Dropped]"), "0"::equals);
        awaitText(By.cssSelector("#sinks tr[data-sink] td[data-label=Health] .badge"), text -> !text.isBlank());
        // The kinds of sink come from the API's sink registry: the tests' own kind shows up too.
        awaitText(By.cssSelector("#sink-types tr[data-sink-type=test-memory] td[data-label='Options of its own']"),
                "capacity, label"::equals);
        awaitText(By.cssSelector("#sink-types"), text -> text.contains("prometheus-remote-write")
                && text.contains("The most recent measurements in memory (tests only)"));
    }

    @Test
    void theOverviewWorksAt390PixelsAndFromTheKeyboard() {
        api("POST", "/api/v1/sources", """
                {"name": "narrow-one", "connStr": "postgresql://monitor@127.0.0.1:1/x", "enabled": false, "preset": "basic"}""");
        browser.resize(390, 844);
        try {
            open("#/");
            WebElement filter = waitFor(By.id("filter"));
            assertThat(filter.getSize().getWidth()).isLessThanOrEqualTo(390);
            filter.sendKeys("narrow-one");
            WebElement row = browser.waiting(Duration.ofSeconds(5)).until(d -> d.findElements(
                    By.cssSelector("#fleet tr[data-source=narrow-one]")).stream().filter(WebElement::isDisplayed)
                    .findFirst().orElse(null));
            assertThat(row.getSize().getWidth()).isLessThanOrEqualTo(390);
            Object scrollWidth = browser.driver().executeScript("return document.documentElement.scrollWidth");
            assertThat(((Number) scrollWidth).intValue()).isLessThanOrEqualTo(390);
            browser.screenshot("overview-390");

            // Keyboard: Tab from the filter reaches the source's link; Enter opens its page.
            WebElement link = row.findElement(By.cssSelector("a"));
            // (the column headers' sort buttons come first: 14 columns, hidden on a narrow screen but focusable)
            for (int i = 0; i < 20 && !link.equals(browser.driver().switchTo().activeElement()); i++) {
                browser.driver().switchTo().activeElement().sendKeys(Keys.TAB);
            }
            assertThat(browser.driver().switchTo().activeElement()).isEqualTo(link);
            link.sendKeys(Keys.ENTER);
            awaitText(By.cssSelector("#view h1"), "narrow-one"::equals);
        } finally {
            browser.resize(1280, 900);
        }
    }
}
