package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pgharvest.testsupport.TestPostgres;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;

/**
 * The console's time ranges in a real Chromium against a source collected every second: an
 * absolute range in the URL draws that range, a drag across a chart zooms every chart to the
 * dragged span and puts it into the URL, and opening that URL again shows the same picture.
 */
class ConsoleRangeTest extends ConsoleTestBase {

    private static final TestPostgres pg = TestPostgres.shared();

    @BeforeAll
    static void database() {
        pg.createDatabase("console_range_db");
    }

    @Test
    void aDragAcrossAChartZoomsToThatSpanKeptInTheUrlAndTheUrlShowsTheSameRangeAgain() {
        api("POST", "/api/v1/sources", """
                {"name": "range-db", "connStr": "%s", "metrics": {"db_stats": 1, "db_size": 1, "backends": 1}}"""
                .formatted(pg.connStr("console_range_db")));
        open("#/sources/range-db");
        browser.waiting(Duration.ofSeconds(30)).until(d -> points("tps") >= 12);
        assertThat(chart("tps").getAttribute("data-store")).isEqualTo("window");
        assertThat(chart("tps").findElement(By.cssSelector(".chart-origin")).getText())
                .matches("\\(window · every [12] s\\)");

        Instant to = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).minusSeconds(1);
        Instant from = to.minusSeconds(12);
        open("#/sources/range-db?from=" + from + "&to=" + to);
        browser.waiting(Duration.ofSeconds(10)).until(d -> shownFrom("tps") == from.getEpochSecond() && points("tps") > 0);
        assertThat(shownTo("tps")).isEqualTo(to.getEpochSecond());
        assertThat(browser.driver().findElement(By.id("chart-range")).getAttribute("value")).isEqualTo("custom");
        assertThat(browser.driver().findElement(By.id("chart-from")).isDisplayed()).isTrue();
        int before = points("tps");
        browser.screenshot("range-absolute");

        // drag from a quarter to three quarters of the chart: the middle 6 seconds
        WebElement over = chart("tps").findElement(By.cssSelector(".u-over"));
        int width = over.getSize().getWidth();
        new Actions(browser.driver()).moveToElement(over, -width / 4, 0).clickAndHold()
                .moveByOffset(width / 2, 0).release().perform();

        browser.waiting(Duration.ofSeconds(10)).until(d -> d.getCurrentUrl().contains("from=")
                && !query().get("from").equals(from.toString()));
        Instant zoomedFrom = Instant.parse(query().get("from"));
        Instant zoomedTo = Instant.parse(query().get("to"));
        assertThat(zoomedTo.getEpochSecond() - zoomedFrom.getEpochSecond()).isCloseTo(6, within(1L));
        assertThat(zoomedFrom.getEpochSecond() - from.getEpochSecond()).isCloseTo(3, within(1L));
        browser.waiting(Duration.ofSeconds(10)).until(d -> shownFrom("tps") == zoomedFrom.getEpochSecond());
        assertThat(shownTo("tps")).isEqualTo(zoomedTo.getEpochSecond());
        // every chart of the page follows, with only the points of the zoomed span
        assertThat(shownFrom("connections")).isEqualTo(zoomedFrom.getEpochSecond());
        int zoomed = points("tps");
        assertThat(zoomed).isPositive().isLessThan(before);
        String zoomedUrl = browser.driver().getCurrentUrl();
        browser.screenshot("range-zoomed");

        // the browser's history holds each range: back is the range before the zoom, forward the zoom
        browser.driver().navigate().back();
        browser.waiting(Duration.ofSeconds(10)).until(d -> shownFrom("tps") == from.getEpochSecond());
        browser.driver().navigate().forward();
        browser.waiting(Duration.ofSeconds(10)).until(d -> shownFrom("tps") == zoomedFrom.getEpochSecond());

        // the same URL, rendered afresh: the same range and the same points
        open("#/sources/range-db");
        browser.waiting(Duration.ofSeconds(10)).until(d -> shownTo("tps") > zoomedTo.getEpochSecond() + 5);
        open(zoomedUrl.substring(zoomedUrl.indexOf('#')));
        browser.waiting(Duration.ofSeconds(10)).until(d -> shownFrom("tps") == zoomedFrom.getEpochSecond());
        assertThat(shownTo("tps")).isEqualTo(zoomedTo.getEpochSecond());
        browser.waiting(Duration.ofSeconds(10)).until(d -> points("tps") == zoomed);
    }

    private Map<String, String> query() {
        String url = browser.driver().getCurrentUrl();
        String query = url.contains("?") ? url.substring(url.indexOf('?') + 1) : "";
        return Stream.of(query.split("&")).filter(pair -> pair.contains("="))
                .collect(Collectors.toMap(pair -> pair.substring(0, pair.indexOf('=')),
                        pair -> URLDecoder.decode(pair.substring(pair.indexOf('=') + 1), StandardCharsets.UTF_8)));
    }

    private static WebElement chart(String id) {
        return browser.driver().findElement(By.cssSelector("figure[data-chart='" + id + "']"));
    }

    private static int points(String id) {
        return Integer.parseInt(chart(id).getAttribute("data-points"));
    }

    private static long shownFrom(String id) {
        String value = chart(id).getAttribute("data-from");
        return value == null ? 0 : Long.parseLong(value);
    }

    private static long shownTo(String id) {
        String value = chart(id).getAttribute("data-to");
        return value == null ? 0 : Long.parseLong(value);
    }
}
