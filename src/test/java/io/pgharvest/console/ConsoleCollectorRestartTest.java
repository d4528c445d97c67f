package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.RunningApp;
import io.pgharvest.testsupport.TestBrowser;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import tools.jackson.databind.JsonNode;

/**
 * A real outage, not a simulated one: the collector the console talks to is stopped while the
 * overview is open, then started again on the same port and data directory. The page says its
 * picture is stale and since when, and clears that with fresh data when the collector is back,
 * without a reload. (ConsoleFirstUseTest's outage case blocks the API's URLs in Chromium instead.)
 * The same restart carries a plan change: the index of a top statement is dropped while pgharvest
 * is down, and the restarted collector's statement page marks the new plan as changed from the
 * shape read before the restart (kept in the data directory, not in the lost window).
 */
class ConsoleCollectorRestartTest {

    private static final String ROW = "#fleet tr[data-source=restart-watch]";
    private static final String[] SETTINGS = {"--pgharvest.sinks[0].type=jsonfile", "--pgharvest.connect-timeout=2s",
        "--pgharvest.query-insights.planning-user=" + TestPostgres.TEST_PLANNER};
    private static final String PLANS_DB = "restart_plans_db";
    private static final String SELECT = "select name from restart_plan_orders where status = ?";

    private static TestPostgres pg;
    private static TestBrowser browser;

    @TempDir
    Path dataDir;

    @BeforeAll
    static void start() {
        pg = TestPostgres.shared();
        pg.createDatabase("restart_watch_db");
        pg.createDatabase(PLANS_DB);
        pg.execute(PLANS_DB, "create extension if not exists pg_stat_statements");
        pg.execute(PLANS_DB, "create table restart_plan_orders (id int primary key, status text, name text)");
        pg.execute(PLANS_DB, "insert into restart_plan_orders select i, 'status-' || i, 'n' || i"
                + " from generate_series(1, 20000) i");
        pg.execute(PLANS_DB, "create index restart_plan_status on restart_plan_orders (status)");
        pg.execute(PLANS_DB, "analyze restart_plan_orders");
        pg.execute("postgres", "do $$ begin if not exists (select from pg_roles where rolname = 'restart_plan_monitor')"
                + " then create role restart_plan_monitor login in role pg_monitor; end if; end $$");
        pg.execute("postgres", TestPostgres.CREATE_TEST_PLANNER);
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
    void aStoppedCollectorMarksThePageStaleItsRestartClearsThatAndMarksThePlanChangeMadeWhileItWasDown() throws Exception {
        int port = freePort();
        var running = new AtomicBoolean(true);
        Thread workload = Thread.ofVirtual().start(() -> runSelects(running));
        RunningApp app = RunningApp.startOnPort(dataDir, port, SETTINGS);
        try {
            ApiClient api = app.api();
            assertThat(api.send("POST", "/api/v1/metrics", """
                    {"name": "restart_ping", "sqls": {"14": "select 1 as up_value"}, "gauges": ["*"]}""").status())
                    .isEqualTo(201);
            assertThat(api.send("POST", "/api/v1/sources", """
                    {"name": "restart-watch", "connStr": "%s", "metrics": {"restart_ping": 1}}"""
                    .formatted(pg.connStr("restart_watch_db"))).status()).isEqualTo(201);
            assertThat(api.send("POST", "/api/v1/sources", """
                    {"name": "restart-plans", "connStr": "%s", "metrics": {"query_stats": 1, "query_texts": 1, "query_plans": 1}}"""
                    .formatted(pg.connStr(PLANS_DB).replace("postgres@", "restart_plan_monitor@"))).status()).isEqualTo(201);

            logIn(port);
            browser.waiting(Duration.ofSeconds(30)).until(d -> datetime(ROW + " .col-lastTickStart time") != null
                    && "connected".equals(d.findElement(By.cssSelector(ROW)).getDomAttribute("data-state")));
            assertThat(browser.driver().findElement(By.id("stale-banner")).isDisplayed()).isFalse();
            // A reload would start a new document without this mark (and ask for the token again).
            script("window.sameDocument = 'kept'");
            Instant lastTickShown = datetime(ROW + " .col-lastTickStart time");

            String queryid = browser.waiting(Duration.ofSeconds(30)).until(d -> {
                String id = pg.queryString(PLANS_DB, "select coalesce((select queryid::text from pg_stat_statements"
                        + " where query like 'select name from restart_plan_orders%' limit 1), '')");
                return id.isEmpty() ? null : id;
            });
            ApiClient plansApi = api;
            String indexedHash = browser.waiting(Duration.ofSeconds(60)).until(d -> {
                JsonNode plans = plansApi.get("/api/v1/sources/restart-plans/queries/" + queryid).json().get("plans");
                return plans != null && !plans.isEmpty() && plans.get(0).get("plan").toString().contains("restart_plan_status")
                        ? plans.get(0).get("hash").asString() : null;
            });

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
            // The page keeps the running collector's picture under the line, not the one of its
            // shutdown (every source "configured", no last tick), which it showed before the
            // status endpoints answered 503 while the application closes.
            assertThat(datetime(ROW + " .col-lastTickStart time")).isNotNull().isBefore(since);
            assertThat(browser.driver().findElement(By.cssSelector(ROW)).getDomAttribute("data-state"))
                    .isEqualTo("connected");
            browser.screenshot("collector-stopped");
            // While nobody watches, the top statement's index goes: only the shape kept on disk can mark the change.
            pg.execute(PLANS_DB, "drop index restart_plan_status");

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

            script("location.hash = arguments[0]", "#/sources/restart-plans/queries/" + queryid);
            String mark = browser.waiting(Duration.ofSeconds(90)).ignoring(StaleElementReferenceException.class)
                    .until(d -> d.findElements(By.cssSelector("#statement-plans .plan-changed")).stream()
                            .map(WebElement::getText).filter(t -> !t.isBlank()).findFirst().orElse(null));
            String seqHash = browser.driver().findElement(By.cssSelector("#statement-plans article.plan"))
                    .getDomAttribute("data-hash");
            assertThat(mark).startsWith("Plan changed ").contains("shape " + indexedHash).endsWith("became " + seqHash + ".");
            assertThat(seqHash).isNotEqualTo(indexedHash);
            assertThat(browser.driver().findElement(By.cssSelector("#statement-plans pre.plan-text")).getText())
                    .contains("Seq Scan on restart_plan_orders").doesNotContain("restart_plan_status");
            assertThat(script("return window.sameDocument")).isEqualTo("kept");
            browser.screenshot("plan-changed-across-restart");
        } finally {
            running.set(false);
            workload.join();
            if (app != null) {
                app.close();
            }
        }
    }

    /** The top statement: the SELECT by status, until stopped (also while pgharvest is down). */
    private static void runSelects(AtomicBoolean running) {
        try (Connection c = pg.connect(PLANS_DB); PreparedStatement select = c.prepareStatement(SELECT)) {
            for (int i = 0; running.get(); i++) {
                select.setString(1, "status-" + (i % 20000));
                select.executeQuery().close();
                if (i % 20 == 0) {
                    Thread.sleep(20);
                }
            }
        } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
