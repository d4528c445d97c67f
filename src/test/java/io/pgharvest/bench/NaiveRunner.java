package io.pgharvest.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The harness's side of {@link NaiveCollector}: writes its configuration, starts it, reads its statistics. */
final class NaiveRunner implements Collector {

    static final String APPLICATION_NAME = "naive-collector";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(180);

    private final JavaProcess process;
    private final Path statsFile;
    private final int metricThreads;
    private long startupMillis;

    private NaiveRunner(JavaProcess process, Path statsFile, int metricThreads) {
        this.process = process;
        this.statsFile = statsFile;
        this.metricThreads = metricThreads;
    }

    /** Starts the naive collector and waits until every source has its connection. */
    static NaiveRunner start(BenchSettings settings, Workload workload, MonitoredFleet fleet,
            CatalogMetrics catalog, Path workDir, Cleanup cleanup) throws Exception {
        int major = fleet.majorVersion();
        var metrics = new ArrayList<NaiveCollector.MetricSpec>();
        workload.intervals().forEach((name, seconds) -> catalog.metrics().get(name).sqlFor(major)
                .ifPresent(sql -> metrics.add(new NaiveCollector.MetricSpec(name, sql, seconds))));
        var sources = new ArrayList<NaiveCollector.SourceSpec>();
        for (int i = 1; i <= workload.sources(); i++) {
            sources.add(new NaiveCollector.SourceSpec(MonitoredFleet.databaseName(i), fleet.jdbcUrl(i)));
        }
        Path statsFile = workDir.resolve("naive-stats.json");
        var config = new NaiveCollector.Config(sources, metrics, APPLICATION_NAME,
                workDir.resolve("measurements.jsonl").toString(), statsFile.toString(), 5_000, 2_000);
        Path configFile = workDir.resolve("naive-config.json");
        HarvestClient.JSON.writeValue(configFile.toFile(), config);
        long started = System.nanoTime();
        JavaProcess process = JavaProcess.start("naive collector " + workload.label(), settings.java(),
                HarvestCollector.jvmOptions(settings, workload),
                List.of("-cp", JavaProcess.absoluteClassPath(), NaiveCollector.class.getName(), configFile.toString()),
                workDir, workDir.resolve("naive.log"), cleanup);
        var runner = new NaiveRunner(process, statsFile, sources.size() * metrics.size());
        try {
            runner.awaitConnected(workload.sources());
            runner.startupMillis = (System.nanoTime() - started) / 1_000_000;
            return runner;
        } catch (Exception | Error e) {
            process.close();
            throw e;
        }
    }

    private void awaitConnected(int sources) throws InterruptedException {
        long deadline = System.nanoTime() + CONNECT_TIMEOUT.toNanos();
        int connected = -1;
        while (System.nanoTime() < deadline) {
            process.requireAlive();
            NaiveCollector.Stats stats = stats();
            connected = stats == null ? -1 : stats.connected();
            if (connected == sources) {
                return;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("naive collector connected " + connected + " of " + sources + " sources:\n"
                + process.logTail());
    }

    @Override
    public long startupMillis() {
        return startupMillis;
    }

    private NaiveCollector.Stats stats() {
        if (!Files.exists(statsFile)) {
            return null;
        }
        return HarvestClient.JSON.readValue(statsFile.toFile(), NaiveCollector.Stats.class);
    }

    @Override
    public String kind() {
        return "naive";
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
        NaiveCollector.Stats s = stats();
        if (s == null) {
            throw new IllegalStateException("naive collector wrote no statistics to " + statsFile);
        }
        var lag = new LagHistogram.Counts(s.lagBoundsSeconds(), s.lagCounts(), s.lagMaxSeconds());
        long executions = s.executionsOk() + s.executionsFailed();
        return new Counters(s.ticks(), s.skipped(), s.executionsOk(), s.executionsFailed(), 0, executions,
                s.measurementsWritten(), lag);
    }

    /** metric -> "count x [SQLState] message" of the last failure, since start. */
    Map<String, String> lastErrors() {
        NaiveCollector.Stats s = stats();
        return s == null ? Map.of() : s.lastErrors();
    }

    @Override
    public double recentMaxLagSeconds() {
        NaiveCollector.Stats s = stats();
        return s == null ? 0 : s.lagMaxSeconds();
    }

    @Override
    public long virtualWorkers() {
        return metricThreads;
    }
}
