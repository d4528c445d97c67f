package io.pgharvest.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Prometheus-protocol time series database for tests: Debian's {@code prometheus} (started with
 * its remote-write receiver enabled) or {@code victoria-metrics}, installed before the tests by
 * src/test/setup/install-test-servers.sh; {@link #start} fails when the program is missing. Runs as a
 * child process on a free loopback port with a temporary data directory; {@link #stop} and
 * {@link #restart} keep both, {@link #close} deletes the directory.
 */
public final class TestReceiver implements AutoCloseable {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    /** Which server. */
    public enum Kind {
        PROMETHEUS("prometheus"), VICTORIA_METRICS("victoria-metrics");

        final String program;

        Kind(String program) {
            this.program = program;
        }
    }

    /** One series' raw samples: its labels ({@code __name__} included) and (time, value) pairs in time order. */
    public record Series(Map<String, String> labels, List<Instant> times, List<Double> values) {
    }

    private final Kind kind;
    private final Path dir;
    private final int port;
    private final String scrapeConfig;
    private final HttpClient http = HttpClient.newHttpClient();
    private Process process;

    private TestReceiver(Kind kind, Path dir, int port, String scrapeConfig) {
        this.kind = kind;
        this.dir = dir;
        this.port = port;
        this.scrapeConfig = scrapeConfig;
    }

    public static TestReceiver start(Kind kind) {
        return start(kind, "");
    }

    /**
     * @param scrapeConfigs Prometheus only: the {@code scrape_configs:} section (YAML), empty for none
     */
    public static TestReceiver start(Kind kind, String scrapeConfigs) {
        InstalledPrograms.require(kind.program);
        try {
            var receiver = new TestReceiver(kind, Files.createTempDirectory("pgharvest-" + kind.program + "-"),
                    freePort(), scrapeConfigs);
            receiver.launch();
            return receiver;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Kind kind() {
        return kind;
    }

    /** The remote-write endpoint. */
    public String writeUrl() {
        return base() + "/api/v1/write";
    }

    public String base() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** Stops the server (SIGTERM, then kill after 30 s); data and port are kept for {@link #restart}. */
    public void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        process = null;
    }

    public void restart() {
        stop();
        launch();
    }

    private void launch() {
        Path program = InstalledPrograms.require(kind.program);
        List<String> command = new ArrayList<>();
        command.add(program.toString());
        try {
            if (kind == Kind.PROMETHEUS) {
                Path config = Files.writeString(dir.resolve("prometheus.yml"), """
                        global:
                          scrape_interval: 1s
                          evaluation_interval: 1s
                        scrape_configs:
                        """ + scrapeConfig);
                command.addAll(List.of("--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port, "--web.enable-remote-write-receiver",
                        "--log.level=warn"));
            } else {
                command.addAll(List.of("-storageDataPath=" + dir.resolve("data"), "-httpListenAddr=127.0.0.1:" + port,
                        "-search.latencyOffset=0s", "-search.disableCache", "-retentionPeriod=100y",
                        "-loggerLevel=WARN"));
            }
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("server.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Awaitility.await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> get(kind == Kind.PROMETHEUS ? "/-/ready" : "/health").statusCode() == 200);
    }

    /** CPU time the running server process has used so far (user + system). */
    public Duration cpuTime() {
        return process == null ? Duration.ZERO : process.info().totalCpuDuration().orElse(Duration.ZERO);
    }

    /** The server's log, for failure messages. */
    public String log() {
        try {
            return Files.readString(dir.resolve("server.log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /**
     * Every raw sample of the series {@code selector} matches with a time in [from, to]: through
     * Prometheus' range-vector query and VictoriaMetrics' export API, which both return samples as
     * stored (no interpolation, duplicates kept).
     */
    public List<Series> samples(String selector, Instant from, Instant to) {
        from = from.truncatedTo(ChronoUnit.MILLIS); // samples carry milliseconds, collection times may carry more
        if (kind == Kind.PROMETHEUS) {
            // Queried a little wider than asked (Prometheus' range bounds moved between versions), cut below.
            long seconds = Duration.between(from, to).toSeconds() + 2;
            JsonNode result = query(selector + "[" + seconds + "s]", to);
            var all = new ArrayList<Series>();
            for (JsonNode series : result) {
                var times = new ArrayList<Instant>();
                var values = new ArrayList<Double>();
                for (JsonNode point : series.path("values")) {
                    Instant at = Instant.ofEpochMilli(Math.round(point.get(0).asDouble() * 1000));
                    if (!at.isBefore(from) && !at.isAfter(to)) {
                        times.add(at);
                        values.add(Double.parseDouble(point.get(1).asString()));
                    }
                }
                all.add(new Series(labels(series.path("metric")), times, values));
            }
            return all;
        }
        String body = getBody("/api/v1/export?match[]=" + encode(selector) + "&start=" + from.toEpochMilli() / 1000.0
                + "&end=" + to.toEpochMilli() / 1000.0);
        var all = new ArrayList<Series>();
        for (String line : body.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode series = JSON.readTree(line);
            var times = new ArrayList<Instant>();
            var values = new ArrayList<Double>();
            for (int i = 0; i < series.path("timestamps").size(); i++) {
                times.add(Instant.ofEpochMilli(series.path("timestamps").get(i).asLong()));
                values.add(series.path("values").get(i).asDouble());
            }
            all.add(new Series(labels(series.path("metric")), times, values));
        }
        all.sort(Comparator.comparing(s -> s.labels().toString()));
        return all;
    }

    /** An instant query's {@code data.result} (a vector or matrix) at {@code at}. */
    public JsonNode query(String promql, Instant at) {
        JsonNode answer = JSON.readTree(getBody("/api/v1/query?query=" + encode(promql) + "&time="
                + at.toEpochMilli() / 1000.0));
        if (!"success".equals(answer.path("status").asString())) {
            throw new IllegalStateException(kind.program + " refused " + promql + ": " + answer);
        }
        return answer.path("data").path("result");
    }

    /** VictoriaMetrics makes recent samples searchable after an in-memory buffer is flushed (about 1 s). */
    public void flush() {
        if (kind == Kind.VICTORIA_METRICS) {
            getBody("/internal/force_flush");
        }
    }

    private static Map<String, String> labels(JsonNode metric) {
        var labels = new TreeMap<String, String>();
        metric.properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
        return new LinkedHashMap<>(labels);
    }

    private String getBody(String path) {
        HttpResponse<String> response = get(path);
        if (response.statusCode() != 200) {
            throw new IllegalStateException(kind.program + " answered " + response.statusCode() + " to " + path + ": "
                    + response.body());
        }
        return response.body();
    }

    private HttpResponse<String> get(String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        stop();
        http.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
