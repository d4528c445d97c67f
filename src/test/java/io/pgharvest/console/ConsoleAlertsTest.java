package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * Alerts in a real Chromium against a real server: a rule written in the console's editor (its
 * test showing each problem next to its field, a name holding markup refused as text), an
 * idle-in-transaction session that makes it fire, the alert on the Alerts page and counted in the
 * top bar and the overview's row, silenced from the page and the silence expired, and the
 * source's check-up showing the rule firing with its value and threshold, its period shaded on the
 * charts of its metric. Summaries and labels
 * holding markup, ANSI codes and newlines stay text.
 */
class ConsoleAlertsTest extends ConsoleTestBase {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "console_alerts_db";
    private static final String SOURCE = "console-alerts";
    private static final String RULE = "ConsoleIdleInTransaction";
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @BeforeAll
    static void database() {
        pg.createDatabase(DB);
    }

    private void type(String id, String text) {
        WebElement input = browser.driver().findElement(By.id(id));
        input.clear();
        input.sendKeys(text);
    }

    @Test
    void anIdleTransactionFiresIsCountedSilencedAndShownInTheCheckUpWithEveryValueAsText() throws Exception {
        if (http("GET", "/api/v1/sources/" + SOURCE, TOKEN, null).statusCode() == 200) {
            api("DELETE", "/api/v1/sources/" + SOURCE, null);
        }
        api("POST", "/api/v1/sources", """
                {"name": "%s", "connStr": "%s", "metrics": {"backends": 1}}""".formatted(SOURCE, pg.connStr(DB)));

        // The editor: a draft's test names each problem next to its field, the name holding markup as text.
        open("#/alert-rules");
        waitFor(By.id("new-rule")).click();
        type("field-name", "<b>x</b>");
        type("field-metric", "backends");
        type("field-condition", "no_such_column > 1.0");
        browser.driver().findElement(By.id("test-rule")).click();
        assertThat(awaitText(By.id("error-condition"), text -> !text.isEmpty(), PATIENCE)).contains("no_such_column");
        assertThat(browser.driver().findElement(By.id("error-name")).getText()).contains("a letter");
        assertThat(browser.driver().findElement(By.id("field-name")).getAttribute("aria-invalid")).isEqualTo("true");
        browser.screenshot("alert-rule-problems");

        type("field-name", RULE);
        type("field-condition", "longest_idle_in_transaction_s > params.max_s");
        type("field-params", "max_s=1");
        type("field-for", "1s");
        browser.driver().findElement(By.cssSelector("#field-severity option[value=critical]")).click();
        // set as a value: sendKeys would press Escape for the ANSI code's first character
        browser.driver().executeScript("document.getElementById('field-summary').value = arguments[0]",
                "{{ source }} <b>x</b> \u001b[31m idle for {{ value }} s");
        type("field-sources", SOURCE);

        try (Connection idle = pg.connect(DB); Statement s = idle.createStatement()) {
            idle.setAutoCommit(false);
            s.execute("select 1");
            // The test runs the draft on the latest rows: the idle session shows once backends has read it.
            browser.waiting(PATIENCE).until(driver -> {
                driver.findElement(By.id("test-rule")).click();
                return awaitText(By.id("rule-test-result"), text -> !text.equals("Testing…"), PATIENCE)
                        .startsWith("It would raise 1 alert");
            });
            assertThat(browser.driver().findElement(By.id("rule-test-alerts")).getText()).contains(SOURCE)
                    .contains("<b>x</b>");
            // the window keeps no idle-in-transaction series: the hour is not replayed, and says why
            assertThat(browser.driver().findElement(By.id("rule-test-hour")).getText())
                    .contains("does not keep column").contains("longest_idle_in_transaction_s");
            browser.driver().findElement(By.id("save-rule")).click();
            awaitText(By.cssSelector("#rules tr[data-rule='" + RULE + "']"), text -> text.contains("critical"), PATIENCE);

            // The Alerts page: firing, with source link, value and the summary as text; the top bar counts it.
            open("#/alerts");
            By row = By.cssSelector("#alerts tr[data-rule='" + RULE + "'][data-state=firing]");
            String alert = awaitText(row, text -> text.contains("critical"), PATIENCE);
            assertThat(alert).contains(SOURCE).contains("<b>x</b>");
            WebElement firing = browser.driver().findElement(row);
            assertThat(firing.findElements(By.tagName("b"))).isEmpty();
            assertThat(Double.parseDouble(firing.findElement(By.cssSelector(".col-value")).getText())).isGreaterThan(1);
            assertThat(firing.findElement(By.cssSelector(".col-source a")).getAttribute("href"))
                    .endsWith("#/sources/" + SOURCE);
            assertThat(browser.driver().executeScript("return arguments[0].textContent",
                    firing.findElement(By.cssSelector(".col-summary")))).asString().contains("\u001b[31m");
            assertThat(awaitText(By.id("alert-counts"), text -> text.contains("critical"), PATIENCE))
                    .matches("\\d+ critical.*");

            firing.findElement(By.cssSelector("button.silence")).click();
            assertThat(waitFor(By.id("field-matchers")).getAttribute("value"))
                    .contains("alertname=" + RULE).contains("source=" + SOURCE);
            type("field-author", "console <i>tester</i>");
            type("field-comment", "looking into it");
            browser.driver().findElement(By.id("create-silence")).click();
            String silenced = awaitText(row, text -> text.contains("silenced by"), PATIENCE);
            assertThat(silenced).contains("console <i>tester</i>");
            String silenceRow = awaitText(By.cssSelector("#silences tr[data-state=active]"),
                    text -> text.contains("looking into it"), PATIENCE);
            assertThat(silenceRow).contains("alertname=" + RULE).contains("pgharvest");
            awaitText(By.id("alert-history"), text -> text.contains(RULE), PATIENCE);
            browser.screenshot("alerts-page");
            browser.driver().findElement(By.cssSelector("#silences button.expire")).click();
            awaitText(By.id("no-silences"), text -> !text.isEmpty(), PATIENCE);
            awaitText(row, text -> text.contains("Silence") && !text.contains("silenced by"), PATIENCE);

            // The overview counts it in the source's row and sorts by severity.
            open("#/");
            By cell = By.cssSelector("#fleet tr[data-source='" + SOURCE + "'] .col-alerts");
            assertThat(awaitText(cell, text -> text.contains("critical"), PATIENCE)).isEqualTo("1 critical");
            browser.driver().findElement(By.cssSelector("th[data-key=alerts] button")).click();
            // most critical first: the first row has a critical alert (ours, or another test source's)
            assertThat(awaitText(By.cssSelector("#fleet tr:first-child .col-alerts"), text -> !text.isEmpty(), PATIENCE))
                    .contains("critical");
            browser.screenshot("overview-alerts");

            // The source's check-up: the rule firing with its value and threshold, the pack's rules ok.
            open("#/sources/" + SOURCE);
            By check = By.cssSelector("#checkup tr[data-rule='" + RULE + "']");
            String checked = awaitText(check, text -> text.contains("firing"), PATIENCE);
            assertThat(checked).contains("max_s = 1").contains("critical");
            assertThat(Double.parseDouble(browser.driver().findElement(check).findElement(By.cssSelector(".col-value"))
                    .getText())).isGreaterThan(1);
            assertThat(awaitText(By.cssSelector("#checkup tr[data-rule=PostgresIdleInTransaction]"),
                    text -> text.contains("ok"), PATIENCE)).contains("max_s = 600");
            assertThat(browser.driver().findElement(By.id("checkup-no-data")).getText()).contains("without data");
            // the charts of the rule's metric shade the alert's period; a chart of another metric does not
            By connections = By.cssSelector("figure[data-chart=connections] .chart-alerts");
            assertThat(awaitText(connections, text -> text.contains(RULE), PATIENCE)).contains("now");
            assertThat(browser.driver().findElement(By.cssSelector("figure[data-chart=connections]"))
                    .getAttribute("data-alert-periods")).isEqualTo("1");
            assertThat(browser.driver().findElement(By.cssSelector("figure[data-chart=tps]"))
                    .getAttribute("data-alert-periods")).isEqualTo("0");
            // the last minute as an absolute range: the shaded period is wide enough to see
            java.time.Instant now = java.time.Instant.now();
            open("#/sources/" + SOURCE + "?from=" + now.minusSeconds(60) + "&to=" + now.plusSeconds(5));
            awaitText(connections, text -> text.contains(RULE), PATIENCE);
            browser.driver().executeScript("document.getElementById('charts').scrollIntoView()");
            browser.screenshot("source-alert-periods");
            browser.driver().executeScript("document.getElementById('source-checkup').scrollIntoView()");
            browser.screenshot("source-checkup");
            idle.commit();
        }
        awaitText(By.cssSelector("#checkup tr[data-rule='" + RULE + "']"), text -> text.contains("ok"), PATIENCE);
    }
}
