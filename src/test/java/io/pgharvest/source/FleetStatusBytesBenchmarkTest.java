package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Bytes (decoded) a console's live refresh of the fleet status costs at 1,000 sources, the whole
 * answer against the changes form: 980 sources whose server is gone (they retry with back-off, each
 * retry a new error time) and 20 that tick every second. A measurement that prints its figures; run
 * it with {@code -Dtest=FleetStatusBytesBenchmarkTest -Dtest.excludedGroups=}.
 */
@Tag("benchmark")
class FleetStatusBytesBenchmarkTest extends ApiTestBase {

    private static final Duration MEASURED = Duration.ofSeconds(60);

    @Test
    void theChangesFormOfABusyFleetsRefreshIsAFractionOfTheWholeAnswer() throws IOException {
        int closedPort;
        try (var socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        var yaml = new StringBuilder();
        for (int i = 0; i < 980; i++) {
            yaml.append("- name: fbytes-gone-%04d\n  conn_str: postgresql://monitor@127.0.0.1:%d/db%d\n  preset_metrics: basic\n"
                    .formatted(i, closedPort, i));
        }
        assertThat(api().send("POST", "/api/v1/import", "application/yaml", yaml.toString()).status()).isLessThan(300);
        api().post("/api/v1/metrics", Map.of("name", "fbytes_ping", "sqls", Map.of("14", "select 1 as up_value"),
                "gauges", List.of("*")));
        for (int i = 0; i < 20; i++) {
            api().post("/api/v1/sources", Map.of("name", "fbytes-ticking-%02d".formatted(i),
                    "connStr", TestPostgres.shared().connStr("postgres"), "metrics", Map.of("fbytes_ping", 1)));
        }
        var warm = api().get("/api/v1/status?limit=1000");
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!warm.json().get("counts").has("connected") || warm.json().get("counts").get("connected").asInt() < 20) {
            assertThat(System.nanoTime()).isLessThan(deadline);
            warm = api().get("/api/v1/status?limit=1000");
        }

        var whole = new ArrayList<Integer>();
        var changes = new ArrayList<Integer>();
        var changedEntries = new ArrayList<Integer>();
        var ticks = new ArrayList<Integer>();
        long statusIndex = warm.index();
        long since = warm.json().get("changeIndex").asLong();
        long end = System.nanoTime() + MEASURED.toNanos();
        while (System.nanoTime() < end) {
            // The console's refresh as it is now, then the whole answer a console without since would get.
            var changed = api().get("/api/v1/status?limit=1000&since=" + since + "&index=" + statusIndex + "&wait=10s");
            var all = api().get("/api/v1/status?limit=1000");
            JsonNode body = changed.json();
            changes.add(changed.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
            whole.add(all.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
            changedEntries.add(body.get("sources").size());
            ticks.add(body.get("ticks").size());
            statusIndex = changed.index();
            since = body.get("changeIndex").asLong();
        }
        System.out.printf("fleet status bytes per refresh at 1,000 sources (980 retrying, 20 ticking 1 s), %d refreshes in %s:%n"
                + "  whole answer: %s%n  changes form: %s%n  changed entries: %s%n  ticks: %s%n",
                changes.size(), MEASURED, whole, changes, changedEntries, ticks);
        assertThat(changes).isNotEmpty();
        assertThat(changes.stream().mapToInt(Integer::intValue).sum())
                .isLessThan(whole.stream().mapToInt(Integer::intValue).sum());
    }
}
