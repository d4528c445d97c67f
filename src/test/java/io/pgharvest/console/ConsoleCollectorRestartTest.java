package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.RunningApp;
import io.pgharvest.testsupport.TestBrowser;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * A real outage, not a simulated one: the collector the console talks to is stopped while the
 * overview is open, then started again on the same port and data directory. The page says its
 * picture is stale and since when, and clears that with fresh data when the collector is back,
 * without a reload. (ConsoleFirstUseTest's outage case blocks the API's URLs in Chromium instead.)
 */
class ConsoleCollectorRestartTest {

    private static final String ROW = "#fleet tr[data-source=restart-watch]";
    private static final String[] SETTINGS = {"--pgharvest.sinks[0].type=jsonfile", "--pgharvest.connect-timeout=2s"};

    private static TestPostgres pg;
    private static TestBrowser browser;

    @TempDir
    Path dataDir;

    @BeforeAll
    static void start() {
        pg = TestPostgres.shared();
        pg.createDatabase("restart_watch_db");
        browser = TestBrowser.start(1280, 900);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.close();
        }
    }

    private static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private Object script(String js, Object... args) {
        return browser.driver().executeScript(js, args);
    }

    /** The instant in the {@code datetime} of the element at {@code selector}, or null while there is none. */
    private Instant datetime(String selector) {
        Object value = script("return document.querySelector(arguments[0])?.getAttribute('datetime') ?? null", selector);
        return value == null ? null : Instant.parse(value.toString());
    }

    private void logIn(int port) {
        browser.driver().get("http://localhost:" + port + "/");
        WebElement token = browser.waiting(Duration.ofSeconds(20))
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        token.sendKeys(RunningApp.TOKEN);
        browser.driver().findElement(By.id("login")).click();
        browser.waiting(Duration.ofSeconds(10)).until(driver -> driver.findElement(By.id("nav")).isDisplayed());
    }

    @Test
    void aStoppedCollectorMarksThePageStaleSinceItStoppedAndItsRestartClearsThatWithFreshData() throws Exception {
        int port = freePort();
        RunningApp app = RunningApp.startOnPort(dataDir, port, SETTINGS);
        try {
            ApiClient api = app.api();
            assertThat(api.send("POST", "/api/v1/metrics", """
                    {"name": "restart_ping", "sqls": {"14": "select 1 as up_value"}, "gauges": ["*"]}""").status())
                    .isEqualTo(201);
            assertThat(api.send("POST", "/api/v1/sources", """
                    {"name": "restart-watch", "connStr": "%s", "metrics": {"restart_ping": 1}}"""
                    .formatted(pg.connStr("restart_watch_db"))).status()).isEqualTo(201);

            logIn(port);
            browser.waiting(Duration.ofSeconds(30)).until(d -> datetime(ROW + " .col-lastTickStart time") != null);
            assertThat(browser.driver().findElement(By.id("stale-banner")).isDisplayed()).isFalse();
            // A reload would start a new document without this mark (and ask for the token again).
            script("window.sameDocument = 'kept'");
            Instant lastTickShown = datetime(ROW + " .col-lastTickStart time");

            Instant stopping = Instant.now();
            app.close();
            app = null;
            // The open long-poll ends with the shutdown; the next request finds nobody at the port.
            String said = browser.waiting(Duration.ofSeconds(60)).ignoring(StaleElementReferenceException.class)
                    .until(d -> {
                        String text = d.findElement(By.id("stale-banner")).getText();
                        return text.contains("not answering since") ? text : null;
                    });
            Instant since = datetime("#stale-banner time");
            assertThat(since).isNotNull().isBetween(stopping.minusSeconds(1), Instant.now());
            assertThat(said).contains("shows what it last said");
            assertThat(browser.driver().findElement(By.id("view")).getDomAttribute("class")).contains("stale");
            // the page keeps its last picture (the shutting-down collector's) under the line
            assertThat(browser.driver().findElements(By.cssSelector(ROW))).hasSize(1);
            browser.screenshot("collector-stopped");

            Instant restarting = Instant.now();
            app = RunningApp.startOnPort(dataDir, port, SETTINGS);
            // Fresh data: a tick the restarted collector ran, shown in the row that was already there.
            Instant freshTick = browser.waiting(Duration.ofSeconds(90))
                    .ignoring(StaleElementReferenceException.class).ignoring(NoSuchElementException.class)
                    .until(d -> {
                        Instant shown = datetime(ROW + " .col-lastTickStart time");
                        return shown != null && shown.isAfter(restarting) ? shown : null;
                    });
            browser.waiting(Duration.ofSeconds(30)).until(d -> !d.findElement(By.id("stale-banner")).isDisplayed());
            assertThat(String.valueOf(browser.driver().findElement(By.id("view")).getDomAttribute("class")))
                    .doesNotContain("stale");
            assertThat(freshTick).isAfter(lastTickShown);
            assertThat(script("return window.sameDocument")).isEqualTo("kept");
            assertThat(browser.driver().findElements(By.id("token")).stream().noneMatch(WebElement::isDisplayed))
                    .isTrue();
            browser.screenshot("collector-back");
        } finally {
            if (app != null) {
                app.close();
            }
        }
    }
}
