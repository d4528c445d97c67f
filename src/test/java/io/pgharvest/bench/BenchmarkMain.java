package io.pgharvest.bench;

import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The benchmark harness of docs/performance.md: starts the monitored PostgreSQL servers, runs each
 * workload against pgharvest (the fat jar, its own process) and against the naive per-metric
 * collector, and writes {@code target/benchmark/results.json} and {@code results.md}.
 *
 * <p>Run by {@code ./mvnw -B -Pbenchmark verify}; never part of the normal build's tests.
 * Everything it starts (PostgreSQL servers, collector processes, temp directories) is undone at
 * exit, also on failure or Ctrl-C.
 */
public final class BenchmarkMain {

    private BenchmarkMain() {
    }

    public static void main(String[] args) {
        Cleanup cleanup = new Cleanup().installShutdownHook();
        int exitCode = 0;
        try {
            run(BenchSettings.fromSystemProperties(), cleanup);
        } catch (Exception e) {
            System.err.println("[bench] benchmark failed:");
            e.printStackTrace();
            exitCode = 1;
        } finally {
            cleanup.runAll();
        }
        System.exit(exitCode);
    }

    private static void run(BenchSettings settings, Cleanup cleanup) throws Exception {
        if (Boolean.parseBoolean(BenchSettings.property("bench.report-only", "false"))) {
            // Measures nothing: writes results.md again from an earlier run's results.json.
            ReportWriter.rerender(settings.outputDir());
            RunMeasurer.log("results.md written again from %s", settings.outputDir().resolve("results.json"));
            return;
        }
        if (!Files.isRegularFile(settings.jar())) {
            throw new IllegalStateException("No pgharvest jar at " + settings.jar() + "; build it with ./mvnw -B package");
        }
        RunMeasurer.log("java %s (%s), runs %s", Runtime.version(), settings.java(), settings.runs());
        Path workRoot = Files.createTempDirectory("pgharvest-bench-");
        cleanup.deleteOnExit(workRoot);
        long fleetStart = System.nanoTime();
        MonitoredFleet fleet = new MonitoredFleet(settings.databasesPerServer());
        cleanup.register("monitored PostgreSQL servers", fleet::close);
        fleet.ensureDatabases(settings.maxSources());
        RunMeasurer.log("PostgreSQL %s: %d databases on %d servers ready in %d s", fleet.version(),
                settings.maxSources(), fleet.servers(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - fleetStart));

        CatalogMetrics catalog = CatalogMetrics.load();
        int major = fleet.majorVersion();
        Map<String, Integer> scaled = catalog.scaledPreset(settings.preset(), settings.intervalDivisor(), major);
        Map<String, Integer> pgwatchShape = catalog.presetAt(settings.preset(), major, settings.pgwatchInterval());
        var sqls = pgwatchShape.keySet().stream().map(m -> catalog.metrics().get(m).sqlFor(major).orElseThrow()).toList();
        long returningRows = fleet.returningRows(sqls);

        var environment = new LinkedHashMap<String, Object>();
        environment.put("date", Instant.now().toString());
        environment.put("machine", Runtime.getRuntime().availableProcessors() + " CPUs, " + memTotal());
        environment.put("java", Runtime.version() + " (" + settings.java() + ")");
        environment.put("PostgreSQL (monitored)", fleet.version() + ", " + fleet.servers() + " servers of at most "
                + settings.databasesPerServer() + " databases (one per source), autovacuum off, pg_stat_statements");
        environment.put("commit", gitCommit());
        environment.put("tuned JVM options (" + settings.jvmOptions().getFileName() + ")", jvmOptions(settings));
        environment.put("scaling metric set", settings.preset() + " preset, intervals / " + settings.intervalDivisor()
                + ": " + scaled);
        environment.put("pgwatch-shaped metric set", pgwatchShape.size() + " metrics (the " + settings.preset()
                + " preset's metrics with SQL for PostgreSQL " + major + ", every " + settings.pgwatchInterval() + " s), "
                + returningRows + " of them return rows on an empty database");

        Supplier<String> sinkUrl = new Supplier<>() {
            private String url;

            @Override
            public String get() {
                if (url == null) {
                    TestPostgres sink = TestPostgres.start(Map.of());
                    cleanup.register("sink PostgreSQL", sink::close);
                    sink.createDatabase("pgharvest_sink");
                    url = sink.connStr("pgharvest_sink");
                }
                return url;
            }
        };
        var measurer = new RunMeasurer(settings, fleet, catalog, cleanup, workRoot, sinkUrl);
        var report = new ReportWriter(settings.outputDir(), environment);
        var results = new ArrayList<RunResult>();
        var failures = new ArrayList<ReportWriter.Failure>();
        for (Workload w : plan(settings, scaled, pgwatchShape)) {
            try {
                results.add(measurer.measure(w));
            } catch (Exception e) {
                RunMeasurer.log("run %s FAILED: %s", w.label(), e);
                e.printStackTrace();
                failures.add(new ReportWriter.Failure(w.label(), String.valueOf(e.getMessage()).lines().findFirst().orElse("")));
            }
            report.write(results, failures);
        }
        RunMeasurer.log("results: %s and %s", settings.outputDir().resolve("results.json"),
                settings.outputDir().resolve("results.md"));
        System.out.println(report.markdown(results, failures));
        if (!failures.isEmpty()) {
            throw new IllegalStateException(failures.size() + " run(s) failed: " + failures);
        }
    }

    static List<Workload> plan(BenchSettings s, Map<String, Integer> scaled, Map<String, Integer> pgwatchShape) {
        var plan = new ArrayList<Workload>();
        Path tuned = s.jvmOptions();
        if (s.runs("idle")) {
            plan.add(new Workload("idle", "pgharvest", 0, scaled, "jsonfile", tuned, s.warmup(), s.window()));
        }
        for (int n : s.scalingSources()) {
            if (s.runs("scaling")) {
                plan.add(new Workload("scaling", "pgharvest", n, scaled, "jsonfile", tuned, s.warmup(), s.window()));
            }
            if (s.runs("naive")) {
                plan.add(new Workload("naive", "naive", n, scaled, "jsonfile", tuned, s.warmup(), s.window()));
            }
        }
        if (s.runs("jvm")) {
            for (int n : s.jvmSources()) {
                for (String variant : s.jvmVariants()) {
                    Path options = variant.equals("default") ? null : s.basedir().resolve(variant);
                    plan.add(new Workload("jvm", "pgharvest", n, scaled, "jsonfile", options, s.warmup(), s.window()));
                }
            }
        }
        if (s.runs("pgwatch")) {
            for (int repeat = 0; repeat < s.pgwatchRepeats(); repeat++) {
                for (int n : s.pgwatchSources()) {
                    plan.add(new Workload("pgwatch", "pgharvest", n, pgwatchShape, s.pgwatchSink(), tuned,
                            s.pgwatchWarmup(), s.pgwatchWindow()));
                }
            }
        }
        return plan;
    }

    private static String jvmOptions(BenchSettings settings) {
        try {
            return String.join(" ", Files.readAllLines(settings.jvmOptions(), StandardCharsets.UTF_8).stream()
                    .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList());
        } catch (IOException e) {
            return "(not readable: " + e.getMessage() + ")";
        }
    }

    private static String memTotal() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024 / 1024 + " GB RAM").findFirst().orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }

    private static String gitCommit() {
        try {
            Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return git.waitFor(10, TimeUnit.SECONDS) && git.exitValue() == 0 ? out : "?";
        } catch (IOException e) {
            return "?";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }
}
