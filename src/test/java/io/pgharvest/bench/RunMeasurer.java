package io.pgharvest.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Runs one {@link Workload}: starts the collector, warms up, takes a snapshot, samples during
 * the window, takes a second snapshot, measures the heap after a full GC, stops the collector,
 * and turns the two snapshots into a {@link RunResult}.
 */
final class RunMeasurer {

    private static final Duration SAMPLE_EVERY = Duration.ofSeconds(2);
    private static final Duration LAG_SAMPLE_EVERY = Duration.ofSeconds(10);

    private final BenchSettings settings;
    private final MonitoredFleet fleet;
    private final CatalogMetrics catalog;
    private final Cleanup cleanup;
    private final Path workRoot;
    private final JvmTools jvm;
    private final Supplier<String> sinkUrl;
    private int runNumber;

    RunMeasurer(BenchSettings settings, MonitoredFleet fleet, CatalogMetrics catalog, Cleanup cleanup,
            Path workRoot, Supplier<String> sinkUrl) {
        this.settings = settings;
        this.fleet = fleet;
        this.catalog = catalog;
        this.cleanup = cleanup;
        this.workRoot = workRoot;
        this.jvm = new JvmTools(settings.java());
        this.sinkUrl = sinkUrl;
    }

    /** The state at one end of the window. */
    private record Snapshot(long nanos, long collectorCpuTicks, long collectorSystemTicks, Map<Long, Long> backendCpu, long serversCpuTicks,
            MonitoredFleet.Counters server, Collector.Counters counters, ProcStats.MachineCpu machine) {
    }

    RunResult measure(Workload w) throws Exception {
        runNumber++;
        Path workDir = Files.createDirectories(workRoot.resolve("%02d-%s".formatted(runNumber, w.label())));
        log("%s: %d sources, %d metrics, tick every %d s, sink %s, JVM flags %s; warm-up %d s, window %d s",
                w.label(), w.sources(), w.intervals().size(), w.tickPeriodSeconds(), w.sink(),
                w.jvm(), w.warmup().toSeconds(), w.window().toSeconds());
        try (AutoCloseable dir = cleanup.deleteOnExit(workDir)) {
            fleet.resetStatements();
            Collector collector = w.collector().equals("naive")
                    ? NaiveRunner.start(settings, w, fleet, catalog, workDir, cleanup)
                    : HarvestCollector.start(settings, w, fleet, w.sink().equals("postgres") ? sinkUrl.get() : null,
                            workDir, cleanup);
            long startup = collector.startupMillis();
            long registration = collector.registrationMillis();
            JavaProcess process = collector.process();
            try (collector) {
                log("  started in %d ms%s; warming up", startup,
                        registration > 0 ? ", %d sources registered in %d ms".formatted(w.sources(), registration) : "");
                sleepChecking(process, w.warmup());
                Path diagnostics = settings.outputDir().resolve("diagnostics");
                if (settings.diagnostics()) {
                    jvm.startRecording(collector.pid(), diagnostics.resolve(w.label() + ".jfr"));
                }
                Snapshot start = snapshot(collector);
                int backendsAtStart = start.backendCpu.size();
                if (backendsAtStart != w.sources()) {
                    log("  WARNING: %d backends of %s at the window's start, expected %d", backendsAtStart,
                            collector.applicationName(), w.sources());
                }
                var window = sampleWindow(collector, process, w.window());
                Snapshot end = snapshot(collector);
                if (collector instanceof NaiveRunner naive) {
                    naive.lastErrors().forEach((metric, error) -> log("  naive collector: %s failed %s", metric, error));
                }
                if (settings.diagnostics()) {
                    jvm.stopRecording(collector.pid());
                }
                long heapKb = jvm.heapUsedAfterGcKb(collector.pid());
                if (settings.diagnostics()) {
                    jvm.saveDiagnostics(collector.pid(), diagnostics.resolve(w.label() + ".txt"));
                    Files.writeString(diagnostics.resolve(w.label() + "-statements.txt"), fleet.statementProfile(20));
                }
                ProcStats.Status last = ProcStats.status(collector.pid()).orElseThrow();
                RunResult result = result(w, collector, startup, registration, start, end, window, heapKb, last);
                log("  CPU %.2f s, RSS %d MB (mean in window; peak %d MB), heap after GC %d MB, %d platform threads, "
                                + "%d round trips/tick, lag p99 %.1f ms, backends CPU %.2f s",
                        result.cpuSeconds(), result.rssMeanKb() / 1024, result.peakRssKb() / 1024,
                        result.heapAfterGcKb() / 1024, result.threadsMax(), Math.round(result.roundTripsPerTick()),
                        result.lagP99Ms(), result.backendCpuSeconds());
                return result;
            }
        }
    }

    /** Figures sampled during the window. */
    private record WindowSamples(long rssMaxKb, long rssMeanKb, int threadsMax, int threadsMin,
            double lagMaxSampledSeconds) {
    }

    private WindowSamples sampleWindow(Collector collector, JavaProcess process, Duration window)
            throws InterruptedException {
        long end = System.nanoTime() + window.toNanos();
        long nextLagSample = 0;
        long rssMax = 0;
        long rssSum = 0;
        int rssSamples = 0;
        int threadsMax = 0;
        int threadsMin = Integer.MAX_VALUE;
        double lagMax = 0;
        while (true) {
            process.requireAlive();
            ProcStats.Status status = ProcStats.status(collector.pid()).orElseThrow();
            rssMax = Math.max(rssMax, status.rssKb());
            rssSum += status.rssKb();
            rssSamples++;
            threadsMax = Math.max(threadsMax, status.threads());
            threadsMin = Math.min(threadsMin, status.threads());
            long now = System.nanoTime();
            if (collector instanceof HarvestCollector && now >= nextLagSample) {
                lagMax = Math.max(lagMax, collector.recentMaxLagSeconds());
                nextLagSample = now + LAG_SAMPLE_EVERY.toNanos();
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                return new WindowSamples(rssMax, rssSum / rssSamples, threadsMax, threadsMin, lagMax);
            }
            Thread.sleep(Duration.ofNanos(Math.min(left, SAMPLE_EVERY.toNanos())));
        }
    }

    /** CPU readings first and back to back, so that they bound the window tightly. */
    private Snapshot snapshot(Collector collector) {
        long nanos = System.nanoTime();
        ProcStats.Stat collectorCpu = ProcStats.stat(collector.pid()).orElseThrow();
        ProcStats.MachineCpu machine = ProcStats.MachineCpu.read();
        Map<Long, Long> backends = MonitoredFleet.cpuTicks(fleet.backends(collector.applicationName()).keySet());
        long serversCpu = fleet.serversCpuTicks();
        MonitoredFleet.Counters server = fleet.counters();
        Collector.Counters counters = collector.counters();
        return new Snapshot(nanos, collectorCpu.cpuTicks(), collectorCpu.systemTicks(), backends, serversCpu, server, counters, machine);
    }

    private RunResult result(Workload w, Collector collector, long startup, long registration, Snapshot start,
            Snapshot end, WindowSamples window, long heapKb, ProcStats.Status last) {
        double seconds = (end.nanos - start.nanos) / 1e9;
        long backendTicks = 0;
        int fresh = 0;
        for (var entry : end.backendCpu.entrySet()) {
            Long before = start.backendCpu.get(entry.getKey());
            if (before == null) {
                fresh++;
                backendTicks += entry.getValue(); // a new session: all of its CPU fell in the window
            } else {
                backendTicks += entry.getValue() - before;
            }
        }
        Set<Long> gone = new HashSet<>(start.backendCpu.keySet());
        gone.removeAll(end.backendCpu.keySet());
        MonitoredFleet.Counters server = end.server.minus(start.server);
        Collector.Counters counters = end.counters.minus(start.counters);
        LagHistogram.Counts lag = counters.lag();
        return new RunResult(w.label(), w.group(), collector.kind(), w.jvm(), w.sources(),
                w.intervals().size(), w.tickPeriodSeconds(), w.sink(), w.warmup().toSeconds(), round(seconds, 1),
                startup, registration,
                round((end.collectorCpuTicks - start.collectorCpuTicks) / ProcStats.TICKS_PER_SECOND, 2),
                round((end.collectorSystemTicks - start.collectorSystemTicks) / ProcStats.TICKS_PER_SECOND, 2),
                last.rssKb(), window.rssMaxKb(), window.rssMeanKb(), last.peakRssKb(), heapKb, window.threadsMax(), window.threadsMin(),
                collector.virtualWorkers(),
                counters.ticks(), counters.skippedTicks(), counters.fetchesOk(), counters.fetchesFailed(),
                counters.fetchesCached(), counters.roundTrips(), counters.measurements(),
                server.transactions(), server.statements(), server.setConfigStatements(),
                round(server.statementMillis(), 1),
                server.statementsDeallocated(),
                start.backendCpu.size(), fresh, gone.size(), round(backendTicks / ProcStats.TICKS_PER_SECOND, 2),
                round((end.serversCpuTicks - start.serversCpuTicks) / ProcStats.TICKS_PER_SECOND, 2),
                millis(lag.quantile(0.5)), millis(lag.quantile(0.99)), millis(lag.maxBound()),
                millis(window.lagMaxSampledSeconds()), lag.total(),
                round(100 * end.machine.busyShareSince(start.machine), 1),
                round(100 * end.machine.busyShareSince(start.machine) - 100 * ((end.collectorCpuTicks - start.collectorCpuTicks)
                        + (end.serversCpuTicks - start.serversCpuTicks)) / ProcStats.TICKS_PER_SECOND
                        / seconds / Runtime.getRuntime().availableProcessors(), 1),
                loadAverage());
    }

    private static double millis(double seconds) {
        return Double.isFinite(seconds) ? round(seconds * 1000, 1) : seconds;
    }

    static double round(double value, int decimals) {
        double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    private static void sleepChecking(JavaProcess process, Duration duration) throws InterruptedException {
        long end = System.nanoTime() + duration.toNanos();
        while (true) {
            process.requireAlive();
            long left = end - System.nanoTime();
            if (left <= 0) {
                return;
            }
            Thread.sleep(Duration.ofNanos(Math.min(left, Duration.ofSeconds(1).toNanos())));
        }
    }

    static void log(String format, Object... args) {
        System.out.printf("[bench %tT] %s%n", System.currentTimeMillis(), format.formatted(args));
        System.out.flush();
    }
}
