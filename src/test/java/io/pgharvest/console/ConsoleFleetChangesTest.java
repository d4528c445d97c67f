package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The overview follows the fleet status as changes (GET /api/v1/status?since=N): it stays right
 * while sources are added, removed and change state, keeps the rows (and the focus) whose data did
 * not change, and a busy fleet's live refresh brings the ticks, not the whole fleet again.
 */
class ConsoleFleetChangesTest extends ConsoleTestBase {

    private static TestPostgres pg;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.of());
    }

    @AfterAll
    static void stopServer() {
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void theOverviewFollowsAddedRemovedAndChangedSourcesKeepingUnchangedRows() throws IOException {
        for (String name : List.of("0chg-a", "0chg-b", "0chg-c")) {
            api("POST", "/api/v1/sources", """
                    {"name": "%s", "connStr": "postgresql://db/x", "enabled": false}""".formatted(name));
        }
        open("#/");
        awaitRow("0chg-c", "disabled");
        WebElement link = awaitRow("0chg-a", "disabled").findElement(By.cssSelector(".col-name a"));
        browser.driver().executeScript("arguments[0].closest('tr').dataset.mark = 'kept'; arguments[0].focus()", link);

        api("POST", "/api/v1/sources", """
                {"name": "0chg-d", "connStr": "postgresql://db/x", "enabled": false, "group": "added"}""");
        awaitRow("0chg-d", "disabled");
        assertThat(text("#fleet tr[data-source='0chg-d'] .col-group")).isEqualTo("added");

        api("DELETE", "/api/v1/sources/0chg-b", null);
        browser.waiting(Duration.ofSeconds(30)).until(d -> rowOf("0chg-b") == null);

        int closedPort;
        try (var socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        api("PUT", "/api/v1/sources/0chg-c", """
                {"connStr": "postgresql://monitor@127.0.0.1:%d/db", "enabled": true, "preset": "basic"}"""
                .formatted(closedPort));
        browser.waiting(Duration.ofSeconds(30)).until(d -> {
            WebElement row = rowOf("0chg-c");
            return row != null && !"disabled".equals(row.getDomAttribute("data-state"));
        });

        assertThat(rowOf("0chg-a").getDomAttribute("data-mark")).as("the unchanged row is the same node").isEqualTo("kept");
        assertThat(browser.driver().executeScript(
                "return document.activeElement === document.querySelector(\"#fleet tr[data-source='0chg-a'] .col-name a\")"))
                .as("the focused link keeps the focus").isEqualTo(true);
        assertThat(rowOf("0chg-b")).isNull();
        assertThat(rowOf("0chg-d")).isNotNull();
    }

    @Test
    void aBusyFleetsLiveRefreshBringsItsChangesNotTheWholeFleet() {
        api("POST", "/api/v1/metrics", """
                {"name": "busy_ping", "sqls": {"14": "select 1 as up_value"}, "gauges": ["*"]}""");
        var yaml = new StringBuilder();
        for (int i = 0; i < 300; i++) {
            yaml.append("- name: busy-quiet-%03d\n  conn_str: postgresql://db/x\n  is_enabled: false\n  preset_metrics: basic\n"
                    .formatted(i));
        }
        http("POST", "/api/v1/import", TOKEN, yaml.toString());
        try {
            busyFleetRefreshesCarryChanges();
        } finally {
            // The console tests share one application: 300 more sources would push the sources
            // other tests add past the overview's first 250 rows.
            for (int i = 0; i < 300; i++) {
                api("DELETE", "/api/v1/sources/busy-quiet-%03d".formatted(i), null);
            }
            for (String name : List.of("0busy-ticking-1", "0busy-ticking-2")) {
                api("DELETE", "/api/v1/sources/" + name, null);
            }
        }
    }

    private void busyFleetRefreshesCarryChanges() {
        for (String name : List.of("0busy-ticking-1", "0busy-ticking-2")) {
            api("POST", "/api/v1/sources", """
                    {"name": "%s", "connStr": "%s", "metrics": {"busy_ping": 1}}""".formatted(name, pg.connStr("postgres")));
        }
        open("#/");
        browser.waiting(Duration.ofSeconds(60)).until(d -> tickOf("0busy-ticking-1") != null);
        int whole = api("GET", "/api/v1/status?limit=1000", null).length();
        String firstTick = tickOf("0busy-ticking-1");
        browser.driver().executeScript("performance.clearResourceTimings()");

        // Two expired waits (10 s each): both ticking sources ticked every second in between, the 300 others never.
        @SuppressWarnings("unchecked")
        List<Long> sizes = browser.waiting(Duration.ofSeconds(60)).until(d -> {
            var answered = (List<Long>) browser.driver().executeScript("""
                    return performance.getEntriesByType('resource')
                        .filter(r => r.name.includes('/api/v1/status') && r.responseEnd > 0)
                        .map(r => r.decodedBodySize)""");
            return answered.size() >= 2 ? answered : null;
        });

        assertThat(whole).as("the whole fleet's answer").isGreaterThan(40_000);
        assertThat(sizes).as("each refresh's bytes against the whole fleet's %d", whole)
                .allSatisfy(size -> assertThat(size).isPositive().isLessThan(whole / 10));
        browser.waiting(Duration.ofSeconds(30)).until(d -> !firstTick.equals(tickOf("0busy-ticking-1")));
        assertThat(rowOf("busy-quiet-000")).isNotNull();
    }

    private String tickOf(String name) {
        var times = browser.driver().findElements(By.cssSelector(
                "#fleet tr[data-source='" + name + "'] .col-lastTickStart time[datetime]"));
        return times.isEmpty() ? null : times.getFirst().getDomAttribute("datetime");
    }

    private String text(String css) {
        return browser.driver().findElement(By.cssSelector(css)).getText();
    }

    private WebElement awaitRow(String name, String state) {
        return browser.waiting(Duration.ofSeconds(30)).until(d -> {
            WebElement r = rowOf(name);
            return r != null && state.equals(r.getDomAttribute("data-state")) ? r : null;
        });
    }

    private WebElement rowOf(String name) {
        var rows = browser.driver().findElements(By.cssSelector("#fleet tr[data-source='" + name + "']"));
        return rows.isEmpty() ? null : rows.getFirst();
    }
}
