package io.pgharvest.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.PgharvestApplication;
import io.pgharvest.testsupport.InsightsWorkload;
import io.pgharvest.testsupport.TestPostgres;
import io.pgharvest.testsupport.TestReceiver;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard check: every panel query of the shipped Grafana dashboards (grafana/prometheus/),
 * variables expanded, returns data from a real Prometheus that pgharvest filled, once through the
 * scrape endpoint and once through remote write. pgharvest collects a primary and its streaming
 * standby (the replication panels need both) with an idle transaction holding a lock and an inactive
 * replication slot, and a workload of statements, a pg_sleep and a row-lock wait
 * ({@link InsightsWorkload}) for the query insights dashboard; each Prometheus also scrapes
 * pgharvest's /actuator/prometheus for the health dashboard. The result per panel is printed and written to target/dashboard-check.txt.
 */
class PrometheusDashboardsTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Path DASHBOARDS = Path.of("grafana", "prometheus");
    private static final String TOKEN = "dashboard-check-token-0123456789";
    private static final String METRICS = "{db_stats: 5, db_size: 5, connection_usage: 5, backends: 5, locks: 5, "
            + "replication: 5, replication_slots: 5, xid_wraparound: 5, wal: 5, standby_replay: 5, check_failing: 5, "
            + "query_stats: 5, query_texts: 5, query_samples: 5}";
    /** A metric that always fails, so the solo lane (back-off) has something to show. */
    private static final String FAILING_METRIC = """
            metrics:
              check_failing:
                sqls:
                  14: select 1 / 0 as never
            """;
    /** $__rate_interval as Grafana would set it for 5 s data scraped every second. */
    private static final String RATE_INTERVAL = "1m";
    /** $__range: the last 10 minutes, longer than the check runs. */
    private static final String RANGE = "10m";

    @TempDir
    Path dir;

    /** One panel's result on both paths. */
    private record PanelResult(String dashboard, String panel, boolean scrape, boolean remoteWrite) {
    }

    @Test
    void everyPanelQueryReturnsDataFromScrapedAndFromRemoteWrittenSeries() throws Exception {
        int serverPort = freePort();
        int scrapePort = freePort();
        String actuator = scrapeJob("pgharvest", serverPort, "/actuator/prometheus", TOKEN);
        try (TestPostgres primary = TestPostgres.start(Map.of("shared_preload_libraries", "pg_stat_statements"));
                TestReceiver scraping = TestReceiver.start(TestReceiver.Kind.PROMETHEUS,
                        actuator + scrapeJob("pgharvest-sink", scrapePort, "/metrics", null));
                TestReceiver receiving = TestReceiver.start(TestReceiver.Kind.PROMETHEUS, actuator)) {
            primary.createDatabase("shop");
            primary.execute("shop", "create table orders (id int primary key, note text)");
            primary.execute("shop", "insert into orders select g, 'n' from generate_series(1, 1000) g");
            // Reserves WAL from now on, so its retained WAL is a number, and no one consumes it.
            primary.execute("postgres", "select pg_create_physical_replication_slot('spare_slot', true)");
            try (TestPostgres standby = primary.startStandby("replica_a");
                    Connection idle = primary.connect("shop");
                    Connection busy = primary.connect("shop");
                    // statements, a pg_sleep and a lock wait for the query insights dashboard, run by a role
                    // of their own (query_stats leaves the collector's role out)
                    InsightsWorkload workload = InsightsWorkload.start(primary, "shop", "shop_app")) {
                primary.awaitReplayedOn(standby, Duration.ofSeconds(60));
                holdAnIdleTransaction(idle);
                Thread sleeper = runALongQuery(busy);
                Path sources = Files.writeString(dir.resolve("sources.yaml"), """
                        - name: primary
                          conn_str: %s
                          custom_metrics: %s
                          custom_tags: {env: check}
                          is_enabled: true
                        - name: standby
                          conn_str: %s
                          custom_metrics: %s
                          custom_tags: {env: check}
                          is_enabled: true
                        """.formatted(primary.connStr("shop"), METRICS, standby.connStr("shop"), METRICS));
                Path metrics = Files.writeString(dir.resolve("metrics.yaml"), FAILING_METRIC);
                try (ConfigurableApplicationContext app = SpringApplication.run(PgharvestApplication.class,
                        "--server.port=" + serverPort, "--spring.main.banner-mode=off",
                        "--pgharvest.data-dir=" + dir.resolve("data"), "--pgharvest.api.token=" + TOKEN,
                        "--pgharvest.import.sources=" + sources, "--pgharvest.import.metrics=" + metrics,
                        "--pgharvest.sinks[0].type=prometheus", "--pgharvest.sinks[0].port=" + scrapePort,
                        "--pgharvest.sinks[0].address=127.0.0.1",
                        "--pgharvest.sinks[1].type=prometheus-remote-write",
                        "--pgharvest.sinks[1].url=" + receiving.writeUrl())) {
                    String queryId = workload.lockedUpdateQueryId();
                    List<PanelResult> results = awaitData(scraping, receiving, queryId);
                    report(results);
                    assertThat(results).hasSize(61);
                    assertThat(results).filteredOn(r -> !r.scrape() || !r.remoteWrite()).isEmpty();
                    for (TestReceiver receiver : List.of(scraping, receiving)) {
                        assertShowsTheLockWait(receiver, queryId);
                    }
                } finally {
                    // Ends the long query on the server, so its connection closes cleanly afterwards
                    // (closing it under a running query raced with the query's own thread).
                    primary.execute("postgres", "select pg_cancel_backend(pid) from pg_stat_activity"
                            + " where query = 'select pg_sleep(600)'");
                    sleeper.join(Duration.ofSeconds(10));
                }
            }
        }
    }

    /** Checks every 10 s until every panel has data on both paths, or 3 minutes passed. */
    private static List<PanelResult> awaitData(TestReceiver scraping, TestReceiver receiving, String queryId) {
        var last = new ArrayList<PanelResult>();
        try {
            Awaitility.await().atMost(Duration.ofMinutes(3)).pollDelay(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofSeconds(10)).until(() -> {
                        last.clear();
                        last.addAll(check(scraping, receiving, queryId));
                        return last.stream().allMatch(r -> r.scrape() && r.remoteWrite());
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // reported and asserted by the caller, panel by panel
        }
        return last;
    }

    private static List<PanelResult> check(TestReceiver scraping, TestReceiver receiving, String queryId)
            throws IOException {
        var results = new ArrayList<PanelResult>();
        try (Stream<Path> files = Files.list(DASHBOARDS)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                JsonNode dashboard = JSON.readTree(file.toFile());
                List<String> sources = sourceValues(dashboard);
                for (JsonNode panel : panels(dashboard)) {
                    results.add(new PanelResult(file.getFileName().toString(), panel.path("title").asString(),
                            hasData(scraping, panel, sources, queryId), hasData(receiving, panel, sources, queryId)));
                }
            }
        }
        return results;
    }

    /**
     * The values $source takes: {@code .+} for a multi-value dashboard (its "All"), else each
     * source in turn (a panel has data when one source gives it, e.g. replay lag on the standby).
     */
    private static List<String> sourceValues(JsonNode dashboard) {
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("name").asString().equals("source")) {
                return variable.path("multi").asBoolean() ? List.of(".+") : List.of("primary", "standby");
            }
        }
        return List.of("");
    }

    private static List<JsonNode> panels(JsonNode dashboard) {
        var all = new ArrayList<JsonNode>();
        for (JsonNode panel : dashboard.path("panels")) {
            all.add(panel);
            panel.path("panels").forEach(all::add); // collapsed rows
        }
        return all.stream().filter(p -> !p.path("targets").isEmpty()).toList();
    }

    /**
     * Every target of the panel returns at least one series for one of the source values; $queryid is
     * the workload's update that waits for a lock, $samples_per_read 1.
     */
    private static boolean hasData(TestReceiver receiver, JsonNode panel, List<String> sources, String queryId) {
        for (String source : sources) {
            boolean all = true;
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asString().replace("$__rate_interval", RATE_INTERVAL)
                        .replace("$__range", RANGE).replace("$source", source).replace("$queryid", queryId)
                        .replace("$samples_per_read", "1");
                if (receiver.query(expr, Instant.now()).isEmpty()) {
                    all = false;
                }
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    /**
     * What the query insights dashboard's statement panels read for the update that waits: its
     * normalized text, and samples waiting on Lock/transactionid blocked by one session.
     */
    private static void assertShowsTheLockWait(TestReceiver receiver, String queryId) {
        JsonNode text = receiver.query("pgharvest_query_text_info{source=\"primary\", queryid=\"" + queryId + "\"}",
                Instant.now());
        assertThat(text.findValuesAsString("query")).contains(InsightsWorkload.LOCKED_UPDATE);
        JsonNode waits = receiver.query("max_over_time(pgharvest_query_samples_blocked_by{source=\"primary\", queryid=\""
                + queryId + "\", wait_event_type=\"Lock\", wait_event=\"transactionid\"}[" + RANGE + "])", Instant.now());
        assertThat(waits.findValues("value")).as("lock-wait samples of the update")
                .anySatisfy(value -> assertThat(value.get(1).asString()).isEqualTo("1"));
    }

    private static void report(List<PanelResult> results) throws IOException {
        var lines = new ArrayList<String>();
        var perDashboard = new LinkedHashMap<String, int[]>();
        for (PanelResult r : results) {
            lines.add(String.format("%-26s %-55s scrape=%-5s remote-write=%s", r.dashboard(), r.panel(),
                    r.scrape() ? "data" : "EMPTY", r.remoteWrite() ? "data" : "EMPTY"));
            int[] counts = perDashboard.computeIfAbsent(r.dashboard(), d -> new int[3]);
            counts[0]++;
            counts[1] += r.scrape() ? 1 : 0;
            counts[2] += r.remoteWrite() ? 1 : 0;
        }
        perDashboard.forEach((dashboard, c) -> lines.add(String.format("%s: %d panels, %d with data through scrape,"
                + " %d through remote write", dashboard, c[0], c[1], c[2])));
        String text = String.join("\n", lines) + "\n";
        System.out.print(text);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "dashboard-check.txt"), text);
    }

    /** A session left idle in a transaction that read a table: a lock held, a long transaction. */
    private static void holdAnIdleTransaction(Connection connection) throws Exception {
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
            statement.execute("select count(*) from orders");
        }
    }

    /** A query that stays active (pg_sleep) until its connection closes: the longest query panels. */
    private static Thread runALongQuery(Connection connection) {
        return Thread.ofVirtual().name("long-query").start(() -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("select pg_sleep(600)");
            } catch (java.sql.SQLException e) {
                // ended by the cancel at the end of the test
            }
        });
    }

    private static String scrapeJob(String job, int port, String path, String token) {
        return """
                  - job_name: %s
                    metrics_path: %s
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                """.formatted(job, path, port)
                + (token == null ? "" : "    authorization:\n      credentials: " + token + "\n");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
