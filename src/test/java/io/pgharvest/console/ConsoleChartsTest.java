package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The source page's health charts in a real Chromium, fed by the recent window of a real source:
 * a burst of commits on the database shows on the transactions chart without a reload.
 */
class ConsoleChartsTest extends ConsoleTestBase {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final int INTERVAL_SECONDS = 3;

    @BeforeAll
    static void database() {
        pg.createDatabase("console_charts_db");
    }

    @Test
    void aBurstOfCommitsShowsOnTheTransactionsChartWithinTwoIntervalsWithoutAReload() throws Exception {
        api("POST", "/api/v1/sources", """
                {"name": "charts-db", "connStr": "%s", "metrics": {"db_stats": %d, "db_size": %d, "backends": %d,
                 "wal": %d, "xmin_horizon": %d, "locks": %d}}""".formatted(pg.connStr("console_charts_db"),
                INTERVAL_SECONDS, INTERVAL_SECONDS, INTERVAL_SECONDS, INTERVAL_SECONDS, INTERVAL_SECONDS, INTERVAL_SECONDS));
        open("#/sources/charts-db");
        WebElement tps = waitFor(By.cssSelector("figure[data-chart='tps']"));
        // two reads of db_stats make the first rate point
        browser.waiting(Duration.ofSeconds(20)).until(d -> Integer.parseInt(chart("tps").getAttribute("data-points")) >= 2);
        Object page = browser.driver().executeScript("return window.performance.timeOrigin");
        double quiet = last("tps");
        assertThat(quiet).isLessThan(100);

        try (Connection c = pg.connect("console_charts_db"); Statement s = c.createStatement()) {
            for (int i = 0; i < 3000; i++) {
                s.execute("select 1"); // autocommit: a transaction each
            }
        }
        long burstEnded = System.nanoTime();
        browser.waiting(Duration.ofSeconds(2L * INTERVAL_SECONDS)).until(d -> last("tps") > 200);
        System.out.printf("console charts: the burst showed on the TPS chart %d ms after it ended (interval %d s)%n",
                (System.nanoTime() - burstEnded) / 1_000_000, INTERVAL_SECONDS);
        // the same page, not a reload: the token lives in the page, a reload would ask for it
        assertThat(browser.driver().executeScript("return window.performance.timeOrigin")).isEqualTo(page);
        assertThat(tps.findElement(By.tagName("canvas")).isDisplayed()).isTrue();

        for (String drawn : List.of("connections", "cache", "size", "wal", "xmin")) {
            browser.waiting(Duration.ofSeconds(10)).until(d -> Integer.parseInt(chart(drawn).getAttribute("data-points")) > 0);
        }
        assertThat(chart("checkpoints").findElement(By.cssSelector(".empty")).getText()).contains("checkpointer");
        assertThat(Double.parseDouble(chart("size").getAttribute("data-last"))).isGreaterThan(1_000_000);
        browser.driver().executeScript("window.scrollTo(0, 0)");
        browser.screenshot("source-charts");

        open("#/");
        awaitText(By.cssSelector("#fleet tr[data-source='charts-db'] .col-tps"), text -> text.endsWith("/s"));
        awaitText(By.cssSelector("#fleet tr[data-source='charts-db'] .col-sizeBytes"), text -> text.endsWith("MiB"));
        browser.driver().findElement(By.cssSelector("th[data-key='tps'] button")).click();
        assertThat(browser.driver().findElement(By.cssSelector("th[data-key='tps']")).getAttribute("aria-sort"))
                .isEqualTo("descending");
        // one script reads the whole column at once: a refresh re-sorts and rewrites it in one go
        @SuppressWarnings("unchecked")
        List<String> shown = (List<String>) browser.driver().executeScript(
                "return [...document.querySelectorAll('#fleet tr .col-tps')].map(cell => cell.textContent)");
        List<Double> rates = shown.stream().map(ConsoleChartsTest::rate).toList();
        assertThat(rates).contains(rate(browser.driver().findElement(
                By.cssSelector("#fleet tr[data-source='charts-db'] .col-tps")).getText()));
        assertThat(rates).isSortedAccordingTo(java.util.Comparator.reverseOrder());
        browser.screenshot("overview-key-numbers");
    }

    @Test
    void theValueAxisIsAsWideAsItsLongestLabelInTheAxisFont() {
        open("#/");
        // the axis's own font as uPlot sets it (its default, at this page's pixel ratio), measured by
        // the browser: every label must fit beside the 10 px ticks and 5 px gap (uPlot's defaults)
        @SuppressWarnings("unchecked")
        List<Number> shortOf = (List<Number>) browser.driver().executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                import('./console/charts.js').then(({axisWidth}) => {
                  const font = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';
                  const ratio = 2;
                  const u = {pxRatio: ratio, axes: [{}, {font: [font.replace('12px', 12 * ratio + 'px'), 12 * ratio, 12]}]};
                  const ctx = document.createElement('canvas').getContext('2d');
                  ctx.font = font;
                  const labels = [['977 KiB/s'], ['999.9 MiB/s', '0 B/s'], ['WWWWWW'], ['1.25 G', '-13.5 M']];
                  done(labels.map(values => axisWidth(u, values, 1)
                      - Math.max(...values.map(v => ctx.measureText(v).width)) - 15));
                }, e => done([String(e)]));""");
        assertThat(shortOf).allSatisfy(slack -> assertThat(slack.doubleValue()).isGreaterThanOrEqualTo(0));
    }

    /** "1.5 K/s" as 1500; an empty cell (no numbers) as -1, which sorts last. */
    private static double rate(String text) {
        if (text.isBlank()) {
            return -1;
        }
        String number = text.replace("/s", "").strip();
        double factor = number.endsWith("K") ? 1e3 : number.endsWith("M") ? 1e6 : number.endsWith("G") ? 1e9 : 1;
        return Double.parseDouble(number.replaceAll("[^0-9.]", "")) * factor;
    }

    private static WebElement chart(String id) {
        return browser.driver().findElement(By.cssSelector("figure[data-chart='" + id + "']"));
    }

    private static double last(String id) {
        String value = chart(id).getAttribute("data-last");
        return value == null || value.isEmpty() ? 0 : Double.parseDouble(value);
    }
}
