package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.history.FleetHistory;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.postgres.PostgresSink;
import io.pgharvest.sink.postgres.PostgresSinkProperties;
import io.pgharvest.sink.postgres.SinkPoolThreads;
import io.pgharvest.testsupport.FreezableProxy;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The console's ranges beyond the recent window in a real Chromium: two days of a source written
 * through the postgres sink into the database this context's history reader reads (through a
 * proxy the test can freeze). A 6-hour range is drawn from the store and says so; the compare
 * overlay draws the same span a day earlier on the health charts and the statement page; a store
 * that stops answering shows on the charts with its name while the rest of the page works.
 */
class ConsoleHistoryTest extends ConsoleTestBase {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final String DATABASE = "console_history";
    private static final String SOURCE = "history-console";
    private static final Instant END = Instant.now().truncatedTo(ChronoUnit.HOURS);
    private static final Instant START = END.minus(Duration.ofDays(2));
    private static final FreezableProxy STORE = proxy();

    @DynamicPropertySource
    static void history(DynamicPropertyRegistry registry) {
        registry.add("pgharvest.history[0].type", () -> "postgres");
        registry.add("pgharvest.history[0].url", () -> {
            PG.createDatabase(DATABASE);
            return "postgresql://" + TestPostgres.SUPERUSER + "@127.0.0.1:" + STORE.port() + "/" + DATABASE;
        });
        registry.add("pgharvest.history[0].statement-timeout", () -> "2s");
    }

    @BeforeAll
    static void twoDaysInTheStore() throws Exception {
        PG.createDatabase(DATABASE);
        try (var threads = new SinkPoolThreads()) {
            PostgresSink sink = PostgresSink.create("pgharvest.sinks[0]", "console-history",
                    PostgresSinkProperties.of(PG.connStr(DATABASE)), threads, Clock.systemUTC());
            try {
                var fleet = new FleetHistory(List.of(SOURCE));
                var batch = new ArrayList<Measurement>();
                for (long m = 0; m < Duration.ofDays(2).toMinutes(); m++) {
                    batch.addAll(fleet.minute(m, START.plus(Duration.ofMinutes(m))));
                }
                sink.write(batch);
            } finally {
                sink.close();
            }
        }
    }

    @AfterAll
    static void closeProxy() throws IOException {
        STORE.close();
    }

    @Test
    void choosingSevenDaysOnTheOverviewReadsTheKeyNumbersFromTheStoreKeptInTheUrl() {
        addTheSourceOnce();
        open("#/");
        By tps = By.cssSelector("tr[data-source='" + SOURCE + "'] .col-tps");
        browser.waiting(Duration.ofSeconds(20)).until(d -> !d.findElements(tps).isEmpty());
        // Disabled since before the window: no latest numbers.
        assertThat(browser.driver().findElement(tps).getText()).isEmpty();
        assertThat(header("tps")).isEqualTo("TPS");
        new org.openqa.selenium.support.ui.Select(browser.driver().findElement(By.id("fleet-range"))).selectByValue("7d");
        browser.waiting(Duration.ofSeconds(20)).until(d -> d.findElement(tps).getText().endsWith("/s"));
        assertThat(browser.driver().getCurrentUrl()).endsWith("#/?last=7d");
        assertThat(header("tps")).isEqualTo("TPS (mean)");
        assertThat(header("connections")).isEqualTo("Conns (mean)");
        assertThat(browser.driver().findElement(tps).getAttribute("title")).isEqualTo("from postgres");
        String shown = browser.driver().findElement(tps).getText();
        browser.screenshot("overview-7d");

        // the link opens the same range and the same numbers
        open("#/?last=7d");
        browser.waiting(Duration.ofSeconds(20)).until(d -> !d.findElements(tps).isEmpty()
                && d.findElement(tps).getText().equals(shown));
        assertThat(browser.driver().findElement(By.id("fleet-range")).getAttribute("value")).isEqualTo("7d");
        assertThat(header("tps")).isEqualTo("TPS (mean)");
    }

    private String header(String key) {
        return browser.driver().findElement(By.cssSelector("th[data-key='" + key + "'] button")).getText();
    }

    @Test
    void aRangeFromTheStoreComparesWithADayEarlierAndAStoreOutageShowsOnTheChartsOnly() {
        addTheSourceOnce();
        Instant from = END.minus(Duration.ofHours(6));
        open("#/sources/" + SOURCE + "?from=" + from + "&to=" + END + "&compare=1d");
        browser.waiting(Duration.ofSeconds(20)).until(d -> points("tps") > 0 && comparePoints("tps") > 0);
        assertThat(chart("tps").getAttribute("data-store")).isEqualTo("postgres");
        assertThat(chart("tps").findElement(By.cssSelector(".chart-origin")).getText())
                .isEqualTo("(postgres · every 1 min)");
        // 6 hours at 1 minute: 360 buckets of commits and of rollbacks, and as many a day earlier
        assertThat(points("tps")).isBetween(2 * 355, 2 * 361);
        assertThat(comparePoints("tps")).isBetween(2 * 355, 2 * 361);
        assertThat(comparePoints("connections")).isPositive();
        assertThat(chart("tps").findElement(By.cssSelector(".u-legend")).getText()).contains("(a day earlier)");
        assertThat(browser.driver().findElement(By.id("chart-compare")).getAttribute("value")).isEqualTo("1d");
        browser.driver().executeScript("window.scrollTo(0, 0)");
        browser.screenshot("range-compare");

        open("#/sources/" + SOURCE + "/queries/" + FleetHistory.STATEMENT + "?from=" + from + "&to=" + END
                + "&compare=7d");
        // a week earlier the store holds nothing: the overlay is empty, the current span is drawn
        browser.waiting(Duration.ofSeconds(20)).until(d -> points("calls") > 0);
        assertThat(comparePoints("calls")).isZero();
        open("#/sources/" + SOURCE + "/queries/" + FleetHistory.STATEMENT + "?from=" + from + "&to=" + END
                + "&compare=1d");
        browser.waiting(Duration.ofSeconds(20)).until(d -> comparePoints("calls") > 0);
        assertThat(chart("calls").getAttribute("data-store")).isEqualTo("postgres");
        browser.screenshot("range-statement-compare");

        STORE.freeze();
        try {
            aStoreOutageShowsOnTheChartsOnly(from);
        } finally {
            STORE.thaw(); // the overview test reads the same store
        }
    }

    private void aStoreOutageShowsOnTheChartsOnly(Instant from) {
        open("#/sources/" + SOURCE + "?from=" + END.minus(Duration.ofHours(12)) + "&to=" + from);
        WebElement failure = browser.waiting(Duration.ofSeconds(40)).until(d -> {
            WebElement shown = chart("tps").findElement(By.cssSelector(".chart-error"));
            return shown.isDisplayed() ? shown : null;
        });
        assertThat(failure.getText()).startsWith("postgres: ");
        assertThat(chart("tps").getAttribute("data-error")).contains("postgres");
        // the rest of the page works: the configuration and the status are there
        assertThat(awaitText(By.id("source-config"), text -> text.contains("monitor@127.0.0.1"))).isNotEmpty();
        assertThat(browser.driver().findElement(By.id("source-state")).getText()).isEqualTo("disabled");
        browser.driver().executeScript("window.scrollTo(0, 0)");
        browser.screenshot("range-store-down");
    }

    /** The store's source, configured disabled (either test may run first; both need it). */
    private void addTheSourceOnce() {
        if (!api("GET", "/api/v1/sources", null).contains("\"" + SOURCE + "\"")) {
            api("POST", "/api/v1/sources", """
                    {"name": "%s", "connStr": "postgresql://monitor@127.0.0.1:1/app", "enabled": false}""".formatted(SOURCE));
        }
    }

    private static FreezableProxy proxy() {
        try {
            return new FreezableProxy(PG.host(), PG.port());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static WebElement chart(String id) {
        return browser.driver().findElement(By.cssSelector("figure[data-chart='" + id + "']"));
    }

    private static int points(String id) {
        return Integer.parseInt(chart(id).getAttribute("data-points"));
    }

    private static int comparePoints(String id) {
        return Integer.parseInt(chart(id).getAttribute("data-compare-points"));
    }
}
