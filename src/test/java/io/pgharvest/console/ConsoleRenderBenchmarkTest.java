package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import io.pgharvest.testsupport.TestBrowser;
import org.openqa.selenium.By;

/**
 * The overview of 1,000 sources in headless Chromium: time to show it (counts of all, the first
 * page of rows), to show all rows, to re-render one change, and the bytes transferred for the
 * page and its data. Sources point at a closed port, so
 * every row carries a connection error (the longest rows). Figures in docs/console.md. Excluded
 * by default (tag benchmark): {@code ./mvnw -o test -Dtest=ConsoleRenderBenchmarkTest -Dtest.excludedGroups=}.
 */
@Tag("benchmark")
class ConsoleRenderBenchmarkTest extends ConsoleTestBase {

    private static final int SOURCES = 1000;
    /** Rows the overview shows before "show more" or "show all"; counts, filter and sort cover all. */
    private static final int FIRST_PAGE = 250;

    @Test
    void theOverviewOfAThousandSourcesRendersInUnderASecondAndWeighsUnder500KB() throws IOException {
        int closedPort;
        try (var socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        var yaml = new StringBuilder();
        for (int i = 0; i < SOURCES; i++) {
            yaml.append("- name: bench-%04d\n  conn_str: postgresql://monitor@127.0.0.1:%d/db%d\n  group: group-%d\n"
                    .formatted(i, closedPort, i, i % 10))
                    .append("  preset_metrics: basic\n");
        }
        http("POST", "/api/v1/import", TOKEN, yaml.toString());
        browser.waiting(Duration.ofSeconds(120)).until(d -> api("GET", "/api/v1/status", null)
                .contains("\"disconnected\":" + SOURCES));

        logIn();
        browser.driver().executeScript("location.hash = '#/sinks'");
        waitFor(By.id("sinks"));
        browser.driver().executeScript("performance.clearMeasures(); performance.clearResourceTimings();");
        @SuppressWarnings("unchecked")
        var timing = (Map<String, Object>) browser.driver().executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const started = performance.now();
                location.hash = '#/';
                const check = () => {
                  const counted = document.querySelector('#state-counts [data-state=disconnected] strong');
                  if (document.querySelectorAll('#fleet tr').length === %d && counted && counted.textContent === '%d') {
                    requestAnimationFrame(() => setTimeout(() => {
                      const fetched = performance.getEntriesByType('resource').filter(r => r.name.includes('/api/v1/status'));
                      done({shown: performance.now() - started,
                        render: performance.getEntriesByName('overview-render')[0].duration,
                        fetch: fetched.length ? fetched[0].duration : -1});
                    }, 0));
                  } else {
                    setTimeout(check, 5);
                  }
                };
                check();""".formatted(FIRST_PAGE, SOURCES));
        double shownMillis = ((Number) timing.get("shown")).doubleValue();
        double renderMillis = ((Number) timing.get("render")).doubleValue();
        double fetchMillis = ((Number) timing.get("fetch")).doubleValue();

        double allMillis = ((Number) browser.driver().executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const started = performance.now();
                document.getElementById('show-all').click();
                const check = () => document.querySelectorAll('#fleet tr').length === %d
                    ? requestAnimationFrame(() => setTimeout(() => done(performance.now() - started), 0))
                    : setTimeout(check, 5);
                check();""".formatted(SOURCES))).doubleValue();

        // One change (a source switched off) re-renders through the open long-poll.
        api("PUT", "/api/v1/sources/bench-0100", """
                {"connStr": "postgresql://monitor@127.0.0.1:%d/db100", "preset": "basic", "enabled": false}"""
                .formatted(closedPort));
        browser.waiting(Duration.ofSeconds(5)).until(d -> "disabled".equals(browser.driver().executeScript(
                "return document.querySelector('#fleet tr[data-source=bench-0100]').dataset.state")));
        @SuppressWarnings("unchecked")
        var updates = (List<Number>) browser.driver().executeScript(
                "return performance.getEntriesByName('overview-render').slice(1).map(m => m.duration)");
        double updateMillis = updates.stream().mapToDouble(Number::doubleValue).max().orElseThrow();

        // Page weight: a first load of the console (HTML, CSS, scripts) in a browser with an empty
        // cache, plus the fleet's status.
        browser.close();
        browser = TestBrowser.start(1280, 900);
        logIn();
        browser.waiting(Duration.ofSeconds(10)).until(d -> d.findElements(By.cssSelector("#fleet tr")).size() == FIRST_PAGE);
        @SuppressWarnings("unchecked")
        var weight = (Map<String, Number>) browser.driver().executeScript("""
                const nav = performance.getEntriesByType('navigation')[0];
                const resources = performance.getEntriesByType('resource');
                const assets = resources.filter(r => !r.name.includes('/api/'));
                const status = resources.filter(r => r.name.includes('/api/v1/status'));
                const sum = list => list.reduce((total, r) => total + r.transferSize, 0);
                return {page: nav.transferSize + sum(assets), decoded: nav.decodedBodySize
                    + assets.reduce((t, r) => t + r.decodedBodySize, 0),
                  status: status.length ? status[status.length - 1].transferSize : -1,
                  statusDecoded: status.length ? status[status.length - 1].decodedBodySize : -1};""");
        long total = weight.get("page").longValue() + weight.get("status").longValue();
        System.out.printf("console benchmark: %d sources, first %d rows and all counts shown in %.0f ms (status fetch"
                        + " %.0f ms, render %.0f ms), all %d rows shown in %.0f ms, one change re-rendered"
                        + " in %.0f ms; transferred: page %d bytes (%d decoded) + status %d bytes (%d decoded) = %d"
                        + " bytes; load average %s%n", SOURCES, FIRST_PAGE, shownMillis, fetchMillis, renderMillis, SOURCES, allMillis, updateMillis,
                weight.get("page").longValue(), weight.get("decoded").longValue(), weight.get("status").longValue(),
                weight.get("statusDecoded").longValue(), total, loadAverage());
        assertThat(shownMillis).isLessThan(1000);
        assertThat(total).isLessThan(500 * 1024);
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
