package io.pgharvest.history.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.PgharvestApplication;
import io.pgharvest.history.HistoryReadException;
import io.pgharvest.testsupport.TestPostgres;
import io.pgharvest.testsupport.TestReceiver;
import io.pgharvest.window.SeriesKind;
import io.pgharvest.window.TimeRange;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The prometheus history reader against Debian's Prometheus and VictoriaMetrics, each fed by
 * pgharvest's own remote-write sink collecting a real PostgreSQL source: a 6-hour chart read back
 * from the store through {@code /window?from&to&step} has, for every whole bucket the recent
 * window also holds, the window's values bucketed the same way; and the top statements of a range
 * holding the whole run ({@code /queries?from&to}) have the window's sums per statement, {@code other}
 * kept, {@code approximate} where the stored intervals were. Prometheus is read through a
 * {@link RecordingProxy}: every query carried the configured tenant header.
 *
 * <p>Tolerance: a gauge is the mean of the same samples in both, equal to 1e-9 relative. A
 * counter's rate differs by bucket alignment: the window divides the bucket's changes by the
 * seconds between its collections, the store by the step (the last sample before the bucket to the
 * last in it), which at a 2 s interval and 36 s buckets differ by the ticks' jitter, a few
 * milliseconds in 36 s; 5 % relative (plus 0.01/s for rates near zero) holds that with room and
 * still fails a wrong bucket (a bucket off by one step, or a rate off by the step's factor).
 */
class PrometheusHistoryReaderTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TOKEN = "prometheus-history-test-token";
    private static final String SOURCE = "prom_history";
    /** The tenant header's value, a secret as far as pgharvest knows. */
    private static final String TENANT = "tenant-47-secret";
    private static final String MONITOR = "prom_history_monitor";
    private static final Duration STEP = Duration.ofSeconds(36); // the shortest a 6 h range may have
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void prometheusAndVictoriaMetricsAnswerASixHourChartAndTheTopStatementsWithTheWindowsValues(@TempDir Path dir)
            throws Exception {
        // A server of its own, keeping at most 100 statements: the workload's burst of new ones evicts entries,
        // so the read after it is marked approximate.
        try (TestPostgres pg = TestPostgres.start(Map.of("shared_preload_libraries", "pg_stat_statements",
                        "pg_stat_statements.max", "100"));
                TestReceiver prometheus = TestReceiver.start(TestReceiver.Kind.PROMETHEUS);
                TestReceiver victoria = TestReceiver.start(TestReceiver.Kind.VICTORIA_METRICS);
                RecordingProxy tenantProxy = RecordingProxy.to(prometheus.base())) {
            pg.createDatabase(SOURCE);
            pg.execute(SOURCE, "create extension if not exists pg_stat_statements");
            // The collector leaves its own role's statements out of query_stats: it reads as a monitoring role.
            pg.execute("postgres", "create role " + MONITOR + " login in role pg_monitor");
            Instant started = Instant.now();
            // Both collectors run at once: the test waits for three bucket boundaries only once. Prometheus is
            // read through the proxy, with a tenant header.
            var begin = List.of(
                    CompletableFuture.supplyAsync(() -> harvester(dir.resolve("p"), pg, prometheus, tenantProxy.base())),
                    CompletableFuture.supplyAsync(() -> harvester(dir.resolve("v"), pg, victoria, victoria.base())));
            var apps = begin.stream().map(CompletableFuture::join).toList();
            try {
                Instant ranUntil;
                try (var load = StatementLoad.start(pg.jdbcUrl(SOURCE))) {
                    Instant begun = Instant.now();
                    // Two whole buckets after the first partial one, and one more being written.
                    Instant ready = bucketStart(begun).plus(STEP.multipliedBy(3)).plusSeconds(3);
                    Awaitility.await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofSeconds(2))
                            .until(() -> Instant.now().isAfter(ready));
                    ranUntil = Instant.now();
                }
                var receivers = List.of(prometheus, victoria);
                for (int i = 0; i < apps.size(); i++) {
                    TestReceiver receiver = receivers.get(i);
                    int port = port(apps.get(i));
                    Awaitility.await(receiver.kind() + " answers the window's buckets and statements")
                            .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
                                for (String metric : List.of("db_stats", "backends")) {
                                    assertSameBuckets(port, metric);
                                }
                                receiver.flush();
                                assertSameStatements(port, receiver, started, ranUntil);
                                assertSameKeyNumbers(port, receiver.kind(), started, ranUntil);
                            });
                }
            } finally {
                apps.forEach(ConfigurableApplicationContext::close);
            }
            assertThat(tenantProxy.received()).as("queries through the proxy").isNotEmpty()
                    .allSatisfy(headers -> assertThat(headers).containsEntry("x-scope-orgid", List.of(TENANT)));
        }
    }

    /**
     * The store's top statements of a range holding the whole run have the window's sums per
     * statement (calls, execution time, rows, blocks read), {@code other} among them; a statement is
     * approximate exactly when one of its stored intervals was (the raw samples of its
     * {@code approximate} series), and the burst made some so.
     */
    private static void assertSameStatements(int port, TestReceiver receiver, Instant started, Instant to)
            throws Exception {
        Instant from = to.minus(Duration.ofHours(6));
        JsonNode stored = get(port, "/api/v1/sources/" + SOURCE + "/queries?from=" + from + "&to=" + to);
        assertThat(stored.get("store").asString()).isEqualTo("prometheus");
        assertThat(stored.get("error").isNull()).as("error %s", stored.get("error")).isTrue();
        assertThat(stored.toString()).doesNotContain(TENANT);
        JsonNode window = get(port, "/api/v1/sources/" + SOURCE + "/queries?from=" + started + "&to=" + to);
        assertThat(window.get("store").asString()).isEqualTo("window");
        Map<String, JsonNode> expected = byStatement(window);
        Map<String, JsonNode> actual = byStatement(stored);
        assertThat(actual.keySet()).as("statements").isEqualTo(expected.keySet());
        assertThat(expected).as("the top three of each read and other").hasSizeGreaterThanOrEqualTo(4);
        assertThat(expected.keySet()).anyMatch(key -> key.startsWith("other|"));
        for (String key : expected.keySet()) {
            for (String figure : List.of("calls", "totalExecTime", "rows", "sharedBlksRead")) {
                double want = expected.get(key).get(figure).asDouble();
                assertThat(actual.get(key).get(figure).asDouble()).as("%s of %s", figure, key)
                        .isCloseTo(want, org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, Math.abs(want))));
            }
        }
        var marked = new java.util.TreeSet<String>();
        for (TestReceiver.Series series : receiver.samples("{__name__=\"pgharvest_query_stats_approximate\", source=\""
                + SOURCE + "\"}", from, to.minusMillis(1))) {
            if (series.values().stream().anyMatch(value -> value > 0)) {
                marked.add(key(series.labels()));
            }
        }
        assertThat(marked).as("statements of the approximate read").isNotEmpty();
        assertThat(actual.entrySet().stream().filter(e -> e.getValue().get("approximate").asBoolean())
                .map(Map.Entry::getKey)).as("approximate statements").containsExactlyInAnyOrderElementsOf(marked);
    }

    /**
     * The fleet's key numbers over six hours from the store (one query per figure, by source) and
     * over the run from the window agree on the same samples' peak and mean sessions.
     */
    private static void assertSameKeyNumbers(int port, TestReceiver.Kind kind, Instant started, Instant to)
            throws Exception {
        JsonNode stored = numbersOf(get(port, "/api/v1/window?from=" + to.minus(Duration.ofHours(6)) + "&to=" + to));
        JsonNode window = numbersOf(get(port, "/api/v1/window?from=" + started + "&to=" + to));
        assertThat(stored.get("store").asString()).isEqualTo("prometheus");
        assertThat(stored.get("error").isNull()).as("error %s", stored.get("error")).isTrue();
        assertThat(window.get("store").asString()).isEqualTo("window");
        assertThat(stored.get("connectionsMax").asDouble()).isEqualTo(window.get("connectionsMax").asDouble());
        double sessions = window.get("connections").asDouble();
        assertThat(sessions).isPositive();
        assertThat(stored.get("connections").asDouble()).isCloseTo(sessions,
                org.assertj.core.data.Offset.offset(0.15 * sessions));
        double tps = window.get("tps").asDouble();
        if (kind == TestReceiver.Kind.PROMETHEUS) {
            // Prometheus's rate over six hours divides the run's transactions by the six hours: above zero, far
            // below the window's mean over the run (docs/history.md).
            assertThat(stored.get("tps").asDouble()).isPositive().isLessThan(tps / 10);
        } else {
            // VictoriaMetrics' rate divides by the seconds its samples span: the window's mean over the run, but
            // for the run's first and last collections' edges.
            assertThat(stored.get("tps").asDouble()).isCloseTo(tps, org.assertj.core.data.Offset.offset(0.15 * tps));
        }
    }

    private static JsonNode numbersOf(JsonNode fleet) {
        return fleet.valueStream().filter(n -> n.get("source").asString().equals(SOURCE)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + SOURCE + " in " + fleet));
    }

    private static Map<String, JsonNode> byStatement(JsonNode answer) {
        var statements = new TreeMap<String, JsonNode>();
        for (JsonNode statement : answer.get("statements")) {
            var tags = new java.util.HashMap<String, String>();
            for (String tag : List.of("queryid", "dbname", "user", "toplevel")) {
                if (statement.hasNonNull(tag)) {
                    tags.put(tag, statement.get(tag).asString());
                }
            }
            assertThat(statements.put(key(tags), statement)).as("one %s", tags).isNull();
        }
        return statements;
    }

    /** A statement's identity, {@code queryid|dbname|user|toplevel}, a missing tag empty. */
    private static String key(Map<String, String> tags) {
        return String.join("|", tags.getOrDefault("queryid", ""), tags.getOrDefault("dbname", ""),
                tags.getOrDefault("user", ""), tags.getOrDefault("toplevel", ""));
    }

    /** Every bucket whole in both the window and the store (the first and newest are partial) has one value. */
    private static void assertSameBuckets(int port, String metric) throws Exception {
        Instant to = Instant.now();
        JsonNode stored = get(port, "/api/v1/sources/" + SOURCE + "/window?metric=" + metric + "&from="
                + to.minus(Duration.ofHours(6)) + "&to=" + to + "&step=36s");
        assertThat(stored.get("store").asString()).isEqualTo("prometheus");
        assertThat(stored.get("step").asString()).isEqualTo("PT36S");
        assertThat(stored.get("error").isNull()).as("error %s", stored.get("error")).isTrue();
        JsonNode window = get(port, "/api/v1/sources/" + SOURCE + "/window?metric=" + metric);
        assertThat(window.get("store").asString()).isEqualTo("window");
        int compared = 0;
        for (JsonNode series : window.get("series")) {
            String column = series.get("column").asString();
            SeriesKind kind = series.get("kind").asString().equals("rate") ? SeriesKind.COUNTER : SeriesKind.GAUGE;
            Map<Long, Double> expected = bucketed(series, kind);
            JsonNode match = null;
            for (JsonNode s : stored.get("series")) {
                if (s.get("column").asString().equals(column) && s.get("tags").equals(series.get("tags"))) {
                    match = s;
                }
            }
            assertThat(match).as("%s.%s %s from the store", metric, column, series.get("tags")).isNotNull();
            assertThat(match.get("times").size()).isLessThanOrEqualTo(TimeRange.MAX_POINTS);
            var actual = new TreeMap<Long, Double>();
            for (int i = 0; i < match.get("times").size(); i++) {
                actual.put(match.get("times").get(i).asLong(), match.get("values").get(i).asDouble());
            }
            for (var bucket : expected.entrySet()) {
                Double value = actual.get(bucket.getKey());
                assertThat(value).as("%s.%s at %s", metric, column, Instant.ofEpochMilli(bucket.getKey())).isNotNull();
                double want = bucket.getValue();
                double tolerance = kind == SeriesKind.GAUGE ? 1e-9 * Math.max(1, Math.abs(want))
                        : 0.05 * Math.max(Math.abs(want), Math.abs(value)) + 0.01;
                assertThat(value).as("%s.%s at %s", metric, column, Instant.ofEpochMilli(bucket.getKey()))
                        .isCloseTo(want, org.assertj.core.data.Offset.offset(tolerance));
                compared++;
            }
        }
        assertThat(compared).as("buckets compared for %s", metric).isGreaterThanOrEqualTo(4);
    }

    /**
     * The window's points in the store's buckets, whole buckets only: a gauge's mean; a rate's changes
     * (rate times the seconds since the point before) over their seconds.
     */
    private static Map<Long, Double> bucketed(JsonNode series, SeriesKind kind) {
        JsonNode times = series.get("times");
        JsonNode values = series.get("values");
        long step = STEP.toMillis();
        var sums = new TreeMap<Long, double[]>();
        for (int i = 1; i < times.size(); i++) {
            long t = times.get(i).asLong();
            double weight = kind == SeriesKind.GAUGE ? 1 : (t - times.get(i - 1).asLong()) / 1000.0;
            double[] sum = sums.computeIfAbsent(Math.floorDiv(t, step) * step, b -> new double[2]);
            sum[0] += values.get(i).asDouble() * weight;
            sum[1] += weight;
        }
        var buckets = new TreeMap<Long, Double>();
        if (sums.size() > 2) {
            sums.pollFirstEntry(); // begun before the first point (or its pair) was collected
            sums.pollLastEntry(); // still being collected
            sums.forEach((bucket, sum) -> buckets.put(bucket, sum[0] / sum[1]));
        }
        return buckets;
    }

    @Test
    void aStoreThatIsDownIsNamedWithoutItsCredentials() throws Exception {
        int closed;
        try (var socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        var settings = new PrometheusHistorySettings("http://127.0.0.1:" + closed, null, null, "s3cret-bearer-token",
                Map.of("X-Scope-OrgID", "s3cret-tenant"), Duration.ofSeconds(2), null);
        assertThat(settings.problems("pgharvest.history[0]")).isEmpty();
        assertThat(settings.toString()).doesNotContain("s3cret").contains("X-Scope-OrgID");
        try (var reader = new PrometheusHistoryPlugin().create("prometheus", settings)) {
            var range = TimeRange.of(Instant.now().minus(Duration.ofHours(6)), Instant.now());
            assertThatThrownBy(() -> reader.series(SOURCE, range, "db_stats", Map.of("numbackends", SeriesKind.GAUGE),
                    Map.of()))
                    .isInstanceOf(HistoryReadException.class)
                    .hasMessageStartingWith("reading db_stats.numbackends from http://127.0.0.1:" + closed
                            + " failed: cannot reach the store")
                    .message().doesNotContain("s3cret");
            assertThatThrownBy(() -> reader.keyNumbers(range)).isInstanceOf(HistoryReadException.class)
                    .hasMessageContaining("from http://127.0.0.1:" + closed + " failed: cannot reach the store")
                    .message().doesNotContain("s3cret");
            assertThatThrownBy(() -> reader.plans(SOURCE, "1", range)).hasMessageContaining("holds no plans");
        }
    }

    @Test
    void badSettingsAreNamedAndSecretsInTheUrlRefusedWithoutQuotingThem() {
        var headers = new TreeMap<String, String>(Map.of("Bad Name", "x", "Accept", "text/plain",
                "X-Scope-OrgID", "two\nlines"));
        var settings = new PrometheusHistorySettings("http://reader:hunter2@prom:9090?x=1", "u", null, "t",
                headers, Duration.ofMinutes(9), Duration.ofDays(-1));
        assertThat(settings.problems("pgharvest.history[1]")).containsExactly(
                "pgharvest.history[1].url must not carry credentials: use user/password or bearer-token",
                "pgharvest.history[1].url must have neither a ?query nor a #fragment (the reader adds its own)",
                "pgharvest.history[1].user and pgharvest.history[1].password go together (basic authentication)",
                "pgharvest.history[1].bearer-token excludes user/password: choose one authentication",
                "pgharvest.history[1].headers.Accept is set by the reader itself (use user/password or bearer-token"
                        + " for authentication)",
                "pgharvest.history[1].headers: 'Bad Name' is not a valid header name",
                "pgharvest.history[1].headers.X-Scope-OrgID must be one line of text",
                "pgharvest.history[1].request-timeout must be 100ms to 5m (was PT9M)",
                "pgharvest.history[1].retention must be 0 (unknown) or positive (was PT-24H)");
        assertThat(new PrometheusHistorySettings(null, null, null, null, null, null, null).problems("p"))
                .containsExactly("p.url is required for a prometheus history reader (the query API's base, e.g. "
                        + "http://prometheus:9090 or http://victoria-metrics:8428)");
    }

    private static ConfigurableApplicationContext harvester(Path dir, TestPostgres pg, TestReceiver receiver,
            String historyUrl) {
        try {
            Files.createDirectories(dir);
            Path sources = Files.writeString(dir.resolve("sources.yaml"), """
                    - name: %s
                      conn_str: %s
                      custom_metrics: {db_stats: 2, backends: 2, query_stats: 2}
                      is_enabled: true
                    """.formatted(SOURCE, pg.connStr(SOURCE).replace(TestPostgres.SUPERUSER + "@", MONITOR + "@")));
            return SpringApplication.run(PgharvestApplication.class, "--server.port=0", "--spring.main.banner-mode=off",
                    "--pgharvest.data-dir=" + dir.resolve("data"), "--pgharvest.api.token=" + TOKEN,
                    "--pgharvest.import.sources=" + sources,
                    // a short top list: most statements of a read are summed into its other row
                    "--pgharvest.query-insights.top-statements=3",
                    "--pgharvest.sinks[0].type=prometheus-remote-write", "--pgharvest.sinks[0].url=" + receiver.writeUrl(),
                    "--pgharvest.history[0].type=prometheus", "--pgharvest.history[0].url=" + historyUrl,
                    "--pgharvest.history[0].headers.X-Scope-OrgID=" + TENANT);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    private static Instant bucketStart(Instant time) {
        long step = STEP.toMillis();
        return Instant.ofEpochMilli(Math.floorDiv(time.toEpochMilli(), step) * step);
    }

    private static JsonNode get(int port, String path) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s: %s", path, response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }
}
