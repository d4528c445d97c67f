package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.testsupport.FreezableProxy;
import io.pgharvest.testsupport.TestPostgres;
import io.pgharvest.window.WindowBudgetFill;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * A source's database views in a real Chromium against a real server: the lock tree of a real lock
 * wait, an idle-in-transaction session with its age, a table with many dead tuples due for vacuum,
 * an index never used, the databases' transaction ID ages against their limits, and the honest
 * states: not collected, waiting for a read, read and empty, stale during an outage with the
 * connection named, cleared when the source or the collector is back; focus surviving live updates.
 */
class ConsoleDatabaseViewsTest extends ConsoleTestBase {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "console_views_db";

    @BeforeAll
    static void database() throws Exception {
        pg.createDatabase(DB);
        try (Connection c = pg.connect(DB); Statement s = c.createStatement()) {
            s.execute("create extension if not exists pg_stat_statements");
            s.execute("drop table if exists vac_heavy, locked_t");
            // autovacuum off for it, so the dead tuples stay until the test has seen them
            s.execute("create table vac_heavy (id int, note text) with (autovacuum_enabled = false)");
            s.execute("insert into vac_heavy select g, 'row ' || g from generate_series(1, 20000) g");
            s.execute("create index vac_heavy_never_used on vac_heavy (note)");
            s.execute("delete from vac_heavy where id > 2000");
            s.execute("create table locked_t (id int)");
            // more tables than one page of the Tables tab shows
            s.execute("do $$ begin for i in 1..220 loop execute format('create table if not exists page_t%s (id int)',"
                    + " lpad(i::text, 3, '0')); end loop; end $$");
            s.execute("do $$ begin if not exists (select from pg_roles where rolname = 'views_monitor')"
                    + " then create role views_monitor login in role pg_monitor; end if; end $$");
        }
    }

    @AfterEach
    void collectorAnswers() {
        blockApi(false);
    }

    private static void blockApi(boolean blocked) {
        browser.driver().executeCdpCommand("Network.enable", Map.of());
        browser.driver().executeCdpCommand("Network.setBlockedURLs",
                Map.of("urls", blocked ? java.util.List.of("*/api/v1/*") : java.util.List.of()));
    }

    private void source(String name, String connStr, String metrics) {
        if (http("GET", "/api/v1/sources/" + name, TOKEN, null).statusCode() == 200) {
            api("DELETE", "/api/v1/sources/" + name, null);
        }
        api("POST", "/api/v1/sources", """
                {"name": "%s", "connStr": "%s", "metrics": {%s}}""".formatted(name, connStr, metrics));
    }

    private Object script(String js, Object... args) {
        return browser.driver().executeScript(js, args);
    }

    @Test
    void aLockWaitShowsAsATreeWithTheHoldersApplicationAndStatementWhileItWaitsAndClearsWhenItEnds() throws Exception {
        source("views-locks", pg.connStr(DB), "\"query_samples\": 1, \"blocking_locks\": 1");
        try (Connection holder = pg.connect(DB)) {
            holder.createStatement().execute("set application_name = 'holder-app'");
            String holderPid = pidOf(holder);
            holder.setAutoCommit(false);
            holder.createStatement().execute("lock table locked_t in access exclusive mode");
            var waiterDone = new AtomicBoolean();
            Thread waiter = Thread.ofVirtual().start(() -> {
                try (Connection c = pg.connect(DB); Statement s = c.createStatement()) {
                    s.execute("set application_name = 'waiter-app'");
                    s.execute("select count(*) from locked_t");
                    waiterDone.set(true);
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            });

            open("#/sources/views-locks/sessions");
            By root = By.cssSelector("#lock-tree > li.holder[data-pid='" + holderPid + "']");
            // query_samples and blocking_locks are read on the same tick; the tree shows both once both arrived
            String tree = awaitText(root, t -> t.contains("lock table") && t.contains("waiter-app"), Duration.ofSeconds(20));
            assertThat(tree).contains("holder-app").contains("idle in transaction").contains("transaction open")
                    .contains("lock table locked_t in access exclusive mode");
            WebElement waiterNode = browser.driver().findElement(root).findElement(By.cssSelector("ul > li.waiter"));
            assertThat(waiterNode.getText()).contains("waiter-app").contains("waiting").contains("locked_t");
            // the idle-in-transaction holder is listed among the sessions with its transaction's age
            By holderRow = By.cssSelector("#sessions tr[data-key='" + holderPid + "']");
            String age = awaitText(holderRow, text -> text.contains("idle in transaction"));
            assertThat(browser.driver().findElement(holderRow).findElement(By.cssSelector(".col-transactionSeconds"))
                    .getText()).matches("[0-9.]+ (s|min)");
            assertThat(age).contains("holder-app");
            // the filter keeps its focus and text while the page updates every second
            WebElement filter = browser.driver().findElement(By.id("sessions-filter"));
            filter.click();
            filter.sendKeys("waiter");
            String readTime = "return document.querySelector('#view-reads time').getAttribute('datetime')";
            String before = String.valueOf(script(readTime));
            browser.waiting(Duration.ofSeconds(10)).until(d -> !before.equals(String.valueOf(script(readTime))));
            assertThat(script("return document.activeElement.id")).isEqualTo("sessions-filter");
            assertThat(browser.driver().findElements(By.cssSelector("#sessions tr"))).hasSize(1);
            browser.screenshot("sessions-lock-tree");

            holder.commit();
            waiter.join(Duration.ofSeconds(10));
            assertThat(waiterDone).isTrue();
        }
        awaitText(By.id("no-lock-waits"), text -> text.equals("No session waits for a lock."));
        assertThat(browser.driver().findElements(By.cssSelector("#lock-tree li"))).isEmpty();
    }

    private static String pidOf(Connection c) throws Exception {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("select pg_backend_pid()")) {
            r.next();
            return r.getString(1);
        }
    }

    @Test
    void aTableWithManyDeadTuplesIsVacuumDueAndAnIndexNeverUsedIsUnusedWithTheStatisticsAge() {
        source("views-tables", pg.connStr(DB), "\"table_stats\": 2, \"table_maintenance\": 2, \"index_stats\": 2,"
                + " \"unused_indexes\": 2");
        open("#/sources/views-tables/tables");
        By row = By.cssSelector("#tables tr[data-key='public.vac_heavy']");
        String text = awaitText(row, t -> t.contains("due"));
        assertThat(text).contains("dead tuples 18,000 over the threshold").contains("autovacuum is off for this table");
        assertThat(browser.driver().findElement(row).findElement(By.cssSelector(".col-deadPercent")).getText())
                .isEqualTo("90.0 %");
        assertThat(browser.driver().findElement(row).findElement(By.cssSelector(".col-freezeAge")).getText())
                .matches(".+ of 200 M \\([0-9.]+ %\\)");
        browser.driver().findElement(By.cssSelector("th[data-key=deadPercent] button")).click();
        assertThat(browser.driver().findElement(By.cssSelector("th[data-key=deadPercent]")).getAttribute("aria-sort"))
                .isEqualTo("descending");
        browser.screenshot("tables");

        browser.driver().findElement(By.id("tab-indexes")).click();
        By index = By.cssSelector("#indexes tr[data-key='public.vac_heavy.vac_heavy_never_used']");
        String found = awaitText(index, t -> t.contains("unused"));
        assertThat(found).containsAnyOf("never reset", "reset ").contains("never scanned since the statistics");
        browser.driver().findElement(By.id("indexes-findings")).click();
        assertThat(browser.driver().findElements(By.cssSelector("#indexes tr")))
                .allSatisfy(r -> assertThat(r.findElement(By.cssSelector(".col-findings")).getText()).isNotBlank());
        browser.screenshot("indexes");
    }

    @Test
    void showMoreShowsTheNextHundredTablesInTheSortOrderTheApiPagesAlike() throws Exception {
        source("views-paging", pg.connStr(DB), "\"table_stats\": 2");
        var bad = http("GET", "/api/v1/sources/views-paging/tables?sort=nope&order=up&limit=0&offset=-1", TOKEN, null);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("\"sort\"", "\"order\"", "\"limit\"", "\"offset\"");
        open("#/sources/views-paging/tables");
        By rows = By.cssSelector("#tables tr");
        browser.waiting(Duration.ofSeconds(20)).until(d -> d.findElements(rows).size() == 100);
        browser.driver().findElement(By.cssSelector("th[data-key=name] button")).click(); // by name, descending
        browser.driver().findElement(By.id("tables-more")).click();
        browser.waiting(Duration.ofSeconds(5)).until(d -> d.findElements(rows).size() == 200);
        var shown = browser.driver().findElements(rows).stream().skip(100).map(r -> r.getDomAttribute("data-key")).toList();

        JsonNode page = ApiClient.JSON.readTree(api("GET",
                "/api/v1/sources/views-paging/tables?sort=name&order=desc&limit=100&offset=100", null));
        var paged = new ArrayList<String>();
        page.get("tables").forEach(t -> paged.add(t.get("schema").asString() + "." + t.get("name").asString()));
        assertThat(page.get("total").asInt()).isGreaterThanOrEqualTo(222);
        assertThat(shown).hasSize(100).isEqualTo(paged).isSortedAccordingTo(java.util.Comparator.reverseOrder());
        assertThat(shown.getFirst()).isEqualTo("public.page_t121"); // row 101: after vac_heavy and page_t220..page_t122
    }

    @Test
    void aDatabasesXidAgeIsShownAgainstItsLimitAndAServerWithoutStandbysSaysSo() throws Exception {
        source("views-server", pg.connStr(DB), "\"xid_wraparound\": 2, \"replication\": 2, \"replication_slots\": 2");
        open("#/sources/views-server/server");
        By row = By.cssSelector("#wraparound tr[data-key='" + DB + "']");
        awaitText(row, t -> t.contains("%"));
        String percent = browser.driver().findElement(row).findElement(By.cssSelector(".col-xidPercentOfFreezeMaxAge"))
                .getText();
        double age = Double.parseDouble(pg.queryString(DB, "select age(datfrozenxid) from pg_database"
                + " where datname = current_database()"));
        double limit = Double.parseDouble(pg.queryString(DB, "select current_setting('autovacuum_freeze_max_age')"));
        assertThat(Double.parseDouble(percent.replace(" %", ""))).isCloseTo(100 * age / limit,
                org.assertj.core.data.Offset.offset(0.5));
        String standbys = awaitText(By.cssSelector("#replication-reads [data-metric=replication]"),
                t -> t.startsWith("Standbys: read"));
        assertThat(standbys).endsWith(": no standby is connected.");
        browser.screenshot("wraparound-replication");

        // the health page's lag chart says the same, not "not collected"
        open("#/sources/views-server");
        String lag = awaitText(By.cssSelector("figure[data-chart=lag] .empty"), t -> t.startsWith("No standby"));
        assertThat(lag).contains("replication was read at");
    }

    @Autowired
    private ApplicationContext context;

    @Test
    void aReadWhoseRowsTheFullWindowRefusedSaysSoInsteadOfAnEmptyTableAndTheTableReturnsWithRoom() {
        try (var full = WindowBudgetFill.fill(context.getBean("recentWindow"))) {
            source("views-full", pg.connStr(DB), "\"table_stats\": 2");
            open("#/sources/views-full/tables");
            String line = awaitText(By.cssSelector("#view-reads [data-metric=table_stats][data-state=not-kept]"),
                    t -> !t.isBlank(), Duration.ofSeconds(30));
            JsonNode read = null;
            for (JsonNode r : ApiClient.JSON.readTree(api("GET", "/api/v1/sources/views-full/tables", null)).get("reads")) {
                read = "table_stats".equals(r.get("metric").asString()) ? r : read;
            }
            assertThat(read.get("rowsNotKept").asString()).contains("pgharvest.window.max-memory");
            assertThat(read.get("rows").asInt()).isGreaterThanOrEqualTo(222);
            assertThat(line).startsWith("Table sizes and tuples: " + String.format(java.util.Locale.US, "%,d",
                    read.get("rows").asInt()) + " rows read at ")
                    .endsWith("not kept: the recent window is full (pgharvest.window.max-memory).");
            assertThat(browser.driver().findElement(By.id("no-tables")).getText())
                    .isEqualTo("Not shown: the latest read's rows were not kept (see above).");
            assertThat(browser.driver().findElements(By.cssSelector("#tables tr"))).isEmpty();
            browser.screenshot("tables-not-kept");
        }
        // with room again, the next read's rows are kept and shown
        browser.waiting(Duration.ofSeconds(20)).until(d -> d.findElements(By.cssSelector("#tables tr")).size() == 100);
        assertThat(browser.driver().findElements(By.cssSelector("#view-reads [data-state=not-kept]"))).isEmpty();
    }

    @Test
    void eachEmptyStateSaysWhatItMeans() {
        // one read of db_stats and checkpointer (every minute): a rate needs the second
        source("views-bare", pg.connStr(DB), "\"db_stats\": 60, \"checkpointer\": 60");
        open("#/sources/views-bare");
        // the first read of a new source: a login and a tick, which a loaded CI machine can stretch past 10 s
        assertThat(awaitText(By.cssSelector("figure[data-chart=tps] .empty"), t -> t.startsWith("Waiting for the second"),
                Duration.ofSeconds(40)))
                .isEqualTo("Waiting for the second read of db_stats (every 60 s): a rate needs two reads.");
        assertThat(awaitText(By.cssSelector("figure[data-chart=checkpoints] .empty"), t -> t.startsWith("Waiting for the second")))
                .contains("second read of checkpointer");
        assertThat(browser.driver().findElement(By.cssSelector("figure[data-chart=size] .empty")).getText())
                .isEqualTo("Not collected: this source's metrics need db_size.");
        browser.driver().findElement(By.id("tab-server")).click();
        assertThat(awaitText(By.cssSelector("#view-reads [data-metric=xid_wraparound]"), t -> !t.isBlank()))
                .startsWith("Wraparound: not collected.");

        // a fleet with no source at all says how to add one
        String sources = api("GET", "/api/v1/sources", null);
        var names = java.util.regex.Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"").matcher(sources);
        while (names.find()) {
            http("DELETE", "/api/v1/sources/" + java.net.URLEncoder.encode(names.group(1),
                    java.nio.charset.StandardCharsets.UTF_8), TOKEN, null);
        }
        assertThat(api("GET", "/api/v1/sources", null)).isEqualTo("[]");
        open("#/");
        assertThat(awaitText(By.id("fleet-empty"), t -> !t.isBlank())).startsWith("No source yet. Add a source");
        browser.screenshot("empty-fleet");
    }

    @Test
    void aSourceOutageMarksTheViewStaleNamingTheConnectionAndTheMarkClearsWhenTheSourceIsBack() throws Exception {
        int port;
        try (var proxy = new FreezableProxy(pg.host(), pg.port())) {
            port = proxy.port();
            source("views-outage", pg.connStr(DB).replace(":" + pg.port() + "/", ":" + port + "/"),
                    "\"xid_wraparound\": 1, \"db_stats\": 1, \"db_size\": 1");
            open("#/sources/views-outage/server");
            awaitText(By.cssSelector("#view-reads [data-metric=xid_wraparound]"), t -> t.startsWith("Wraparound: read"));
        }
        // the proxy is gone: the server is unreachable
        String down = awaitText(By.id("source-connection"), t -> t.startsWith("The source is disconnected"),
                Duration.ofSeconds(30));
        assertThat(down).contains("the connection failed").doesNotContain("xid_wraparound:");
        // stale once the latest read is older than two intervals and 10 s
        assertThat(awaitText(By.cssSelector("#view-reads [data-metric=xid_wraparound]"), t -> t.contains("stale"),
                Duration.ofSeconds(30))).startsWith("Wraparound: stale, as last read at");
        open("#/");
        String size = awaitText(By.cssSelector("#fleet tr[data-source=views-outage] .col-sizeBytes"),
                t -> t.contains("as of"), Duration.ofSeconds(20));
        assertThat(size).matches(".+ MiB \\(as of .+\\)");
        assertThat(browser.driver().findElement(By.cssSelector("#fleet tr[data-source=views-outage] .col-lastError"))
                .getText()).doesNotStartWith("db_s").doesNotStartWith("xid_").doesNotStartWith("db_size");
        browser.screenshot("outage-overview");
        // at 1280 px the overview fits: no sideways scroll, the Enabled column in view
        assertThat(script("return document.documentElement.scrollWidth <= window.innerWidth"
                + " && [...document.querySelectorAll('.table-wrap')].every(w => w.scrollWidth <= w.clientWidth)"))
                .isEqualTo(true);
        assertThat(script("return document.querySelector('#fleet tr[data-source=views-outage] .col-enabled input')"
                + ".getBoundingClientRect().right <= window.innerWidth")).isEqualTo(true);

        try (var back = new FreezableProxy(pg.host(), pg.port(), port)) {
            browser.waiting(Duration.ofSeconds(30)).until(d -> !d.findElement(By.cssSelector(
                    "#fleet tr[data-source=views-outage] .col-sizeBytes")).getText().contains("as of"));
            // and the connection's error with it
            browser.waiting(Duration.ofSeconds(10)).until(d -> d.findElement(By.cssSelector(
                    "#fleet tr[data-source=views-outage] .col-lastError")).getText().isEmpty());
            open("#/sources/views-outage/server");
            awaitText(By.cssSelector("#view-reads [data-metric=xid_wraparound]"), t -> t.startsWith("Wraparound: read"));
            assertThat(browser.driver().findElement(By.id("source-connection")).isDisplayed()).isFalse();
        }
    }

    @Test
    void liveUpdateFailureOnTheSourcePageClearsWithinOnePollOnceTheCollectorAnswers() {
        source("views-live", pg.connStr(DB), "\"db_stats\": 1");
        open("#/sources/views-live");
        awaitText(By.id("source-state"), "connected"::equals);
        blockApi(true);
        // the long poll in flight when the block began answers first (at most 10 s), the next one fails
        awaitText(By.id("live-failure"), t -> t.startsWith("Live update failed"), Duration.ofSeconds(25));
        blockApi(false);
        long back = System.nanoTime();
        // the live query retries at most 10 s apart: the next answer clears the line
        browser.waiting(Duration.ofSeconds(12)).until(d -> d.findElement(By.id("live-failure")).getText().isEmpty());
        System.out.printf("console views: the live-update failure cleared %d ms after the collector answered%n",
                (System.nanoTime() - back) / 1_000_000);
    }

    @Test
    void keyboardFocusOnAStatementSurvivesLiveUpdatesOfTheQueriesPage() throws Exception {
        // collected as a pg_monitor role, as in production: its own statements are left out, the workload's are not
        source("views-queries", pg.connStr(DB).replace("postgres@", "views_monitor@"),
                "\"query_stats\": 1, \"query_texts\": 1");
        var running = new AtomicBoolean(true);
        Thread workload = Thread.ofVirtual().start(() -> {
            try (Connection c = pg.connect(DB); Statement s = c.createStatement()) {
                while (running.get()) {
                    s.execute("select count(*) from vac_heavy where id < 100");
                    Thread.sleep(20);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            open("#/sources/views-queries/queries");
            By link = By.cssSelector("#statements tr td.statement a");
            browser.waiting(Duration.ofSeconds(20)).until(d -> !d.findElements(link).isEmpty());
            script("document.querySelector('#statements tr td.statement a').focus()");

            String focused = String.valueOf(script("return document.activeElement.closest('tr').dataset.queryid"));
            String calls = String.valueOf(script("return document.activeElement.closest('tr')"
                    + ".querySelector('.col-calls').textContent"));
            browser.waiting(Duration.ofSeconds(15)).until(d -> {
                Object now = script("const row = document.querySelector(`#statements tr[data-queryid='${arguments[0]}']`);"
                        + " return row && row.querySelector('.col-calls').textContent", focused);
                return now != null && !calls.equals(now);
            });
            assertThat(script("return document.activeElement.closest('tr')?.dataset.queryid")).isEqualTo(focused);
        } finally {
            running.set(false);
            workload.join();
        }
    }

    @Test
    void focusAndScrollSurviveLiveUpdatesOnEveryLivePage() throws Exception {
        source("views-pages", pg.connStr(DB).replace("postgres@", "views_monitor@"), "\"db_stats\": 1,"
                + " \"query_samples\": 1, \"blocking_locks\": 1, \"table_stats\": 1, \"table_maintenance\": 1,"
                + " \"index_stats\": 1, \"unused_indexes\": 1, \"xid_wraparound\": 1, \"query_stats\": 1,"
                + " \"query_texts\": 1");
        var running = new AtomicBoolean(true);
        Thread workload = Thread.ofVirtual().start(() -> {
            try (Connection c = pg.connect(DB); Statement s = c.createStatement()) {
                while (running.get()) {
                    // long enough for the 1 s samples to see it running: the statement page's samples grow
                    s.execute("select count(*), pg_sleep(0.4) from vac_heavy where id < 50");
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            String base = "#/sources/views-pages";
            holdsAcrossLiveUpdates("#/", "#fleet tr[data-source=views-pages] .col-name a");
            holdsAcrossLiveUpdates(base, "figure[data-chart=tps] canvas", null);
            holdsAcrossLiveUpdates(base + "/sessions", "#view-reads li", "#sessions-filter");
            holdsAcrossLiveUpdates(base + "/tables", "#tables tr[data-key='public.vac_heavy']",
                    "th[data-key=deadPercent] button");
            holdsAcrossLiveUpdates(base + "/indexes", "#indexes tr", "#indexes-findings");
            holdsAcrossLiveUpdates(base + "/server", "#replication-reads li", null);
            holdsAcrossLiveUpdates(base + "/queries", "#statements tr td.statement a");
            Object queryid = browser.waiting(Duration.ofSeconds(20)).until(d -> script(
                    "return [...document.querySelectorAll('#statements tr')].find(r => r.textContent.includes('pg_sleep'))"
                    + "?.dataset.queryid"));
            holdsAcrossLiveUpdates(base + "/queries/" + queryid, "figure[data-chart] canvas", null);
            // A new sample is added above the ones shown; those stay the same rows (a selection in them survives).
            browser.waiting(Duration.ofSeconds(20)).until(d -> !d.findElements(By.cssSelector("#statement-samples tr")).isEmpty());
            script("window.oldestSample = document.querySelector('#statement-samples tr:last-child');"
                    + " window.samplesBefore = document.querySelectorAll('#statement-samples tr').length;"
                    + " window.oldestSampleText = window.oldestSample.textContent");
            browser.waiting(Duration.ofSeconds(20)).until(d -> (Boolean) script(
                    "return document.querySelectorAll('#statement-samples tr').length > window.samplesBefore"));
            assertThat(script("return window.oldestSample.isConnected"
                    + " && window.oldestSample.textContent === window.oldestSampleText")).isEqualTo(true);
        } finally {
            running.set(false);
            workload.join();
        }
    }

    private void holdsAcrossLiveUpdates(String hash, String focused) {
        holdsAcrossLiveUpdates(hash, focused, focused);
    }

    /**
     * Opens {@code hash}, waits for {@code ready}, scrolls down to the element {@code focused} (the
     * view's last visible link or control when null), focuses it and lets two live answers be rendered: the
     * scroll position never moves, not even for a moment, and the focus and the element's place stay.
     */
    private void holdsAcrossLiveUpdates(String hash, String ready, String focused) {
        open(hash);
        browser.waiting(Duration.ofSeconds(30)).until(d -> !d.findElements(By.cssSelector(ready)).isEmpty());
        script("""
                if (!window.liveAnswers) {
                  const plain = window.fetch;
                  window.liveAnswers = 0;
                  // a blocking query's answer, counted once its page has had the time to render it
                  window.fetch = async (...args) => {
                    const response = await plain(...args);
                    if (String(args[0]).includes('index=') && response.status === 200) {
                      response.clone().text().then(() => setTimeout(() => window.liveAnswers++, 200));
                    }
                    return response;
                  };
                }
                const target = arguments[0] ? document.querySelector(arguments[0])
                  : [...document.querySelectorAll('#view a[href], #view button, #view input, #view select')]
                      .filter(control => control.offsetParent !== null).at(-1); // a hidden "show more" is no control
                // kept by reference: a live update's morph takes away attributes the page did not set
                window.focusTarget = target;
                // taller than the viewport, whatever the page holds, so there is a scroll position to keep
                for (const [id, where] of [['spacer-above', 'prepend'], ['spacer-below', 'append']]) {
                  if (!document.getElementById(id)) document.body[where](Object.assign(document.createElement('div'), {id}));
                  document.getElementById(id).style.height = `${innerHeight}px`;
                }
                window.scrollTo(0, window.scrollY + target.getBoundingClientRect().top - innerHeight / 3);
                target.focus({preventScroll: true});
                window.scrolls = [];
                window.onscroll = () => window.scrolls.push(window.scrollY);
                window.answersBefore = window.liveAnswers;
                """, focused);
        Object scrollY = script("return window.scrollY");
        Object top = script("return Math.round(document.activeElement.getBoundingClientRect().top)");
        assertThat(((Number) scrollY).doubleValue()).as(hash + " scrolled down").isGreaterThan(0);
        browser.waiting(Duration.ofSeconds(30))
                .until(d -> ((Number) script("return window.liveAnswers - window.answersBefore")).intValue() >= 2);
        assertThat(script("return window.scrolls")).as(hash + ": the scroll positions during the live updates")
                .asList().allSatisfy(y -> assertThat(y).isEqualTo(scrollY));
        assertThat(script("return window.scrollY")).as(hash + " scrollY").isEqualTo(scrollY);
        assertThat(script("return document.activeElement === window.focusTarget")).as(hash + " focus").isEqualTo(true);
        assertThat(script("return Math.round(window.focusTarget.getBoundingClientRect().top)"))
                .as(hash + ": the focused element's place").isEqualTo(top);
        script("window.onscroll = null; document.querySelectorAll('#spacer-above, #spacer-below').forEach(s => s.remove())");
    }
}
