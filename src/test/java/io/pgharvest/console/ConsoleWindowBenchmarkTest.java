package io.pgharvest.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.testsupport.TestBrowser;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The console's views of the recent window in headless Chromium, with a full window: 1,000
 * sources, each with an hour of db_stats, db_size, backends and replication at 60 s. Times the
 * overview with its key numbers, a source page's charts, and weighs the source page. Figures in
 * docs/console.md. Excluded by default (tag benchmark):
 * {@code ./mvnw -o test -Dtest=ConsoleWindowBenchmarkTest -Dtest.excludedGroups=}.
 */
@Tag("benchmark")
class ConsoleWindowBenchmarkTest extends ConsoleTestBase {

    private static final int SOURCES = 1000;
    private static final int FIRST_PAGE = 250;
    private static final int POINTS = 60;
    private static final int OVERVIEW_RUNS = 5;

    @Autowired
    MeasurementPublisher publisher;

    @Test
    void theOverviewWithKeyNumbersShowsInUnderASecondAndASourcesChartsInUnder500Ms() throws IOException {
        int closedPort;
        try (var socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        var yaml = new StringBuilder();
        for (int i = 0; i < SOURCES; i++) {
            yaml.append("- name: wbench-%04d\n  conn_str: postgresql://monitor@127.0.0.1:%d/db%d\n  preset_metrics: basic\n"
                    .formatted(i, closedPort, i));
        }
        http("POST", "/api/v1/import", TOKEN, yaml.toString());
        fillTheWindow();
        browser.waiting(Duration.ofSeconds(30)).until(d -> api("GET", "/api/v1/window", null).contains("wbench-0999"));

        logIn();
        var overview = new ArrayList<Map<String, Object>>();
        for (int run = 0; run < OVERVIEW_RUNS; run++) {
            browser.driver().executeScript("location.hash = '#/sinks'");
            waitFor(By.id("sinks"));
            overview.add(timeTheOverview());
        }
        overview.forEach(run -> System.out.println("console window benchmark: overview run " + run));
        List<Double> shown = overview.stream().map(run -> ((Number) run.get("shown")).doubleValue()).sorted().toList();
        double overviewMillis = shown.get(shown.size() / 2);

        double chartsMillis = ((Number) browser.driver().executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const started = performance.now();
                location.hash = '#/sources/wbench-0500';
                const drawn = id => {
                  const figure = document.querySelector(`figure[data-chart=${id}]`);
                  return figure && +figure.dataset.points > 0 && figure.querySelector('canvas');
                };
                const check = () => ['tps', 'connections', 'cache', 'size', 'lag', 'oldest-tx'].every(drawn)
                    ? requestAnimationFrame(() => setTimeout(() => done(performance.now() - started), 0))
                    : setTimeout(check, 5);
                check();""")).doubleValue();
        browser.screenshot("source-charts-full-window");

        // Page weight: a first load of the source page (HTML, CSS, scripts, uPlot) with an empty
        // cache, plus its status and window answers.
        browser.close();
        browser = TestBrowser.start(1280, 900);
        logIn();
        browser.driver().executeScript("location.hash = '#/sources/wbench-0500'");
        browser.waiting(Duration.ofSeconds(10)).until(d -> Integer.parseInt(d.findElement(
                By.cssSelector("figure[data-chart=tps]")).getAttribute("data-points")) > 0);
        @SuppressWarnings("unchecked")
        var weight = (Map<String, Number>) browser.driver().executeScript("""
                const nav = performance.getEntriesByType('navigation')[0];
                const resources = performance.getEntriesByType('resource');
                const sum = list => list.reduce((total, r) => total + r.transferSize, 0);
                const window = resources.filter(r => r.name.includes('/window'));
                return {page: nav.transferSize + sum(resources.filter(r => !r.name.includes('/api/'))),
                  api: sum(resources.filter(r => r.name.includes('/api/'))),
                  window: window.length ? window[0].transferSize : -1,
                  windowDecoded: window.length ? window[0].decodedBodySize : -1};""");
        long total = weight.get("page").longValue() + weight.get("api").longValue();
        System.out.printf("console window benchmark: %d sources x %d points; overview with key numbers shown in %.0f ms"
                        + " (median of %d, min %.0f, max %.0f);"
                        + " a source's charts shown in %.0f ms; source page transferred: assets %d bytes + API %d bytes"
                        + " (its window %d bytes, %d decoded) = %d bytes; load average %s%n", SOURCES, POINTS,
                overviewMillis, shown.size(), shown.getFirst(), shown.getLast(), chartsMillis,
                weight.get("page").longValue(), weight.get("api").longValue(),
                weight.get("window").longValue(), weight.get("windowDecoded").longValue(), total, loadAverage());
        assertThat(overviewMillis).isLessThan(1000);
        assertThat(chartsMillis).isLessThan(500);
        assertThat(total).isLessThan(500 * 1024);
    }

    /**
     * From the hash change until the first 250 rows show key numbers and a frame is painted, with
     * where the time went: each answer's server wait (request sent to first byte), its whole fetch,
     * its size sent and decoded, and the overview's own rendering (its overview-render measures).
     */
    @SuppressWarnings("unchecked")
    private Map<String, Object> timeTheOverview() {
        return (Map<String, Object>) browser.driver().executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                performance.clearResourceTimings();
                performance.clearMeasures();
                const started = performance.now();
                location.hash = '#/';
                const timing = part => {
                  const r = performance.getEntriesByType('resource').find(entry => entry.name.includes(part));
                  return r ? {startedAt: Math.round(r.startTime - started), wait: Math.round(r.responseStart - r.requestStart),
                    fetch: Math.round(r.responseEnd - r.startTime), sent: r.transferSize, decoded: r.decodedBodySize} : null;
                };
                const check = () => {
                  const rows = document.querySelectorAll('#fleet tr');
                  const tps = document.querySelector('#fleet tr .col-tps');
                  if (rows.length === %d && tps && tps.textContent.endsWith('/s')) {
                    requestAnimationFrame(() => setTimeout(() => done({shown: Math.round(performance.now() - started),
                      status: timing('/api/v1/status'), window: timing('/api/v1/window'),
                      render: Math.round(performance.getEntriesByName('overview-render')
                          .reduce((total, m) => total + m.duration, 0))}), 0));
                  } else {
                    setTimeout(check, 5);
                  }
                };
                check();""".formatted(FIRST_PAGE));
    }

    /** An hour of points at 60 s for every source, published as the reapers do. */
    private void fillTheWindow() {
        Instant now = Instant.now();
        for (int p = POINTS - 1; p >= 0; p--) {
            Instant time = now.minusSeconds(60L * p);
            var batch = new ArrayList<Measurement>(SOURCES * 4);
            for (int i = 0; i < SOURCES; i++) {
                String source = "wbench-%04d".formatted(i);
                long t = POINTS - p;
                batch.add(measurement(source, "db_stats", time, Map.of("xact_commit", 1000 * t * (i + 1),
                        "xact_rollback", 3 * t, "blks_hit", 990 * t, "blks_read", 10 * t, "temp_bytes", 0, "numbackends", 5)));
                batch.add(measurement(source, "db_size", time, Map.of("size_b", 10_000_000L * (i + 1) + t)));
                batch.add(measurement(source, "backends", time, Map.of("total", 5 + i % 7, "active", 2, "idle", 3,
                        "idleintransaction", 0, "waiting", 0, "blocked", 0, "longest_tx_seconds", t)));
                batch.add(new Measurement(source, "replication", time, List.of(new Measurement.Row(
                        Map.of("replay_lag_b", 1000 * (i % 13)), Map.of("application_name", "standby1"))), Map.of()));
            }
            publisher.publish(batch);
        }
    }

    private static Measurement measurement(String source, String metric, Instant time, Map<String, Object> values) {
        return new Measurement(source, metric, time, List.of(new Measurement.Row(values, Map.of())), Map.of());
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
