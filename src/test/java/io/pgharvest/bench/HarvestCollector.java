package io.pgharvest.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * pgharvest as the harness runs it: the fat jar in its own JVM, its own data directory, a fixed
 * API token, one sink; sources registered through the REST API.
 */
final class HarvestCollector implements Collector {

    static final String APPLICATION_NAME = "pgharvest";
    static final String PRESET = "bench";
    private static final String TOKEN = "bench-token-0123456789abcdef";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration REAPERS_TIMEOUT = Duration.ofSeconds(180);

    private final JavaProcess process;
    private final HarvestClient client;
    private long startupMillis;
    private long registrationMillis;

    private HarvestCollector(JavaProcess process, HarvestClient client) {
        this.process = process;
        this.client = client;
    }

    /**
     * Starts pgharvest, waits until it is ready, registers the preset and {@code workload.sources()}
     * sources, and waits until a reaper runs for each.
     *
     * @param sinkUrl the storage database for a postgres sink (null for jsonfile)
     */
    static HarvestCollector start(BenchSettings settings, Workload workload, MonitoredFleet fleet,
            String sinkUrl, Path workDir, Cleanup cleanup) throws Exception {
        int port = freePort();
        var arguments = new ArrayList<String>(List.of("-jar", settings.jar().toString()));
        arguments.addAll(List.of(
                "--server.port=" + port,
                "--server.address=127.0.0.1",
                "--pgharvest.data-dir=" + workDir.resolve("data"),
                "--pgharvest.api.token=" + TOKEN,
                // The bench servers' login is their superuser (the surefire setting does not reach a child).
                "--pgharvest.security.allow-superuser-sources=true",
                "--spring.main.banner-mode=off"));
        arguments.addAll(sinkArguments(workload.sink(), workDir, sinkUrl));
        long started = System.nanoTime();
        JavaProcess process = JavaProcess.start("pgharvest " + workload.label(), settings.java(),
                jvmOptions(settings, workload), arguments, workDir, workDir.resolve("pgharvest.log"), cleanup);
        var collector = new HarvestCollector(process, new HarvestClient(port, TOKEN));
        try {
            collector.awaitReady();
            collector.startupMillis = (System.nanoTime() - started) / 1_000_000;
            long registering = System.nanoTime();
            collector.register(workload, fleet);
            collector.awaitReapers(workload.sources());
            collector.registrationMillis = (System.nanoTime() - registering) / 1_000_000;
            return collector;
        } catch (Exception | Error e) {
            process.close();
            throw e;
        }
    }

    static List<String> jvmOptions(BenchSettings settings, Workload workload) {
        var options = new ArrayList<String>();
        if (settings.diagnostics()) {
            options.add("-XX:NativeMemoryTracking=summary");
        }
        if (workload.jvmOptions() != null) {
            if (!Files.isRegularFile(workload.jvmOptions())) {
                throw new IllegalStateException("JVM options file " + workload.jvmOptions() + " does not exist");
            }
            options.add("@" + workload.jvmOptions());
        }
        return options;
    }

    private static List<String> sinkArguments(String sink, Path workDir, String sinkUrl) {
        return switch (sink) {
            case "jsonfile" -> List.of("--pgharvest.sinks[0].type=jsonfile",
                    "--pgharvest.sinks[0].path=" + workDir.resolve("measurements.jsonl"),
                    "--pgharvest.sinks[0].rotation-size=256MB",
                    "--pgharvest.sinks[0].kept-files=2");
            case "postgres" -> List.of("--pgharvest.sinks[0].type=postgres", "--pgharvest.sinks[0].url=" + sinkUrl);
            default -> throw new IllegalArgumentException("unknown sink " + sink);
        };
    }

    private void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            process.requireAlive();
            HarvestClient.Response r = client.tryGet("/actuator/health/readiness");
            if (r != null && r.ok()) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("pgharvest was not ready within " + START_TIMEOUT.toSeconds() + " s:\n"
                + process.logTail());
    }

    private void register(Workload workload, MonitoredFleet fleet) {
        var preset = new LinkedHashMap<String, Object>();
        preset.put("name", PRESET);
        preset.put("description", "benchmark: " + workload.intervals().size() + " metrics");
        preset.put("metrics", workload.intervals());
        expectCreated(client.post("/api/v1/presets", preset), "preset " + PRESET);
        for (int i = 1; i <= workload.sources(); i++) {
            var source = Map.of("name", MonitoredFleet.databaseName(i), "connStr", fleet.connStr(i), "preset", PRESET);
            expectCreated(client.post("/api/v1/sources", source), "source " + i);
        }
    }

    private static void expectCreated(HarvestClient.Response response, String what) {
        if (response.status() != 201) {
            throw new IllegalStateException("Creating " + what + " answered " + response.status() + ": " + response.body());
        }
    }

    private void awaitReapers(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + REAPERS_TIMEOUT.toNanos();
        long active = -1;
        while (System.nanoTime() < deadline) {
            process.requireAlive();
            active = virtualWorkers();
            if (active == expected) {
                return;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("pgharvest runs " + active + " reapers, expected " + expected);
    }

    @Override
    public long startupMillis() {
        return startupMillis;
    }

    @Override
    public long registrationMillis() {
        return registrationMillis;
    }

    @Override
    public String kind() {
        return "pgharvest";
    }

    @Override
    public String applicationName() {
        return APPLICATION_NAME;
    }

    @Override
    public JavaProcess process() {
        return process;
    }

    @Override
    public Counters counters() {
        PrometheusScrape scrape = scrape();
        Map<String, Double> fetches = scrape.sumBy("pgharvest_metric_fetches_total", "outcome");
        long cached = Math.round(fetches.getOrDefault("cached", 0.0));
        long ok = Math.round(fetches.getOrDefault("ok", 0.0)) + cached;
        long failed = Math.round(fetches.getOrDefault("error", 0.0) + fetches.getOrDefault("timeout", 0.0));
        return new Counters(
                Math.round(scrape.sum("pgharvest_ticks_total")),
                Math.round(scrape.sum("pgharvest_ticks_skipped_total")),
                ok, failed, cached,
                Math.round(scrape.sum("pgharvest_round_trips_total")),
                Math.round(scrape.sum("pgharvest_sink_written_total")),
                scrape.histogram("pgharvest_tick_lag_seconds", scrape.sum("pgharvest_tick_lag_seconds_max")));
    }

    PrometheusScrape scrape() {
        HarvestClient.Response r = client.get("/actuator/prometheus");
        if (!r.ok()) {
            throw new IllegalStateException("/actuator/prometheus answered " + r.status() + ": " + r.body());
        }
        return PrometheusScrape.parse(r.body());
    }

    @Override
    public double recentMaxLagSeconds() {
        return statistic("pgharvest.tick.lag", "MAX");
    }

    @Override
    public long virtualWorkers() {
        return Math.round(statistic("pgharvest.reapers.active", "VALUE"));
    }

    private double statistic(String meter, String statistic) {
        HarvestClient.Response r = client.get("/actuator/metrics/" + meter);
        if (r.status() == 404) {
            return 0; // not registered yet (no tick so far)
        }
        if (!r.ok()) {
            throw new IllegalStateException("/actuator/metrics/" + meter + " answered " + r.status() + ": " + r.body());
        }
        for (JsonNode m : r.json().path("measurements")) {
            if (m.path("statistic").asString().equals(statistic)) {
                return m.path("value").asDouble();
            }
        }
        return 0;
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free local port", e);
        }
    }
}
