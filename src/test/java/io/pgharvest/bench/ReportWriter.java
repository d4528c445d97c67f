package io.pgharvest.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Writes {@code results.json} (every figure) and {@code results.md} (the tables of
 * docs/performance.md, with each target of issue 6 judged met or missed).
 */
final class ReportWriter {

    /** A failed run: its label and the error. */
    record Failure(String label, String error) {
    }

    private final Path outputDir;
    private final Map<String, Object> environment;

    ReportWriter(Path outputDir, Map<String, Object> environment) {
        this.outputDir = outputDir;
        this.environment = new LinkedHashMap<>(environment);
    }

    /** The content of results.json. */
    record Saved(Map<String, Object> environment, List<RunResult> results, List<Failure> failures) {
    }

    /** Writes results.md again from the results.json in {@code outputDir} (the report's layout may have changed). */
    static void rerender(Path outputDir) throws IOException {
        Saved saved = HarvestClient.JSON.readValue(Files.readString(outputDir.resolve("results.json")), Saved.class);
        var writer = new ReportWriter(outputDir, saved.environment());
        writer.write(saved.results(), saved.failures());
    }

    void write(List<RunResult> results, List<Failure> failures) throws IOException {
        Files.createDirectories(outputDir);
        var json = new LinkedHashMap<String, Object>();
        json.put("environment", environment);
        json.put("results", results);
        json.put("failures", failures);
        Files.writeString(outputDir.resolve("results.json"),
                HarvestClient.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json), StandardCharsets.UTF_8);
        Files.writeString(outputDir.resolve("results.md"), markdown(results, failures), StandardCharsets.UTF_8);
    }

    String markdown(List<RunResult> results, List<Failure> failures) {
        var md = new StringBuilder();
        md.append("## Environment\n\n| | |\n|---|---|\n");
        environment.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        scaling(md, select(results, r -> r.group().equals("scaling") || r.group().equals("idle")));
        sideBySide(md, results);
        jvm(md, results);
        pgwatch(md, select(results, r -> r.group().equals("pgwatch")));
        targets(md, results);
        if (!failures.isEmpty()) {
            md.append("\n## Failed runs\n\n");
            failures.forEach(f -> md.append("- ").append(f.label()).append(": ").append(f.error()).append('\n'));
        }
        return md.toString();
    }

    private static List<RunResult> select(List<RunResult> results, Predicate<RunResult> filter) {
        return results.stream().filter(filter).sorted(Comparator.comparingInt(RunResult::sources)).toList();
    }

    private void scaling(StringBuilder md, List<RunResult> runs) {
        if (runs.isEmpty()) {
            return;
        }
        md.append("\n## Scaling (pgharvest, tuned JVM flags)\n\n");
        md.append("| sources | metrics | tick | CPU-s | CPU % of a core | RSS MB mean / max in window | peak RSS MB"
                + " | heap after GC MB"
                + " | platform threads | reapers | executions | measurements | server transactions"
                + " | round trips / source / tick | statements / source / tick | PG backend CPU-s"
                + " | lag p50 / p99 / max ms | machine busy % (others) |\n");
        md.append("|" + "---|".repeat(18) + "\n");
        for (RunResult r : runs) {
            md.append(row(r.sources(), r.metrics(), r.tickPeriodSeconds() + " s", f2(r.cpuSeconds()),
                    f1(100 * r.cpuSeconds() / r.windowSeconds()), mb(r.rssMeanKb()) + " / " + mb(r.rssMaxKb()),
                    mb(r.peakRssKb()),
                    mb(r.heapAfterGcKb()), threads(r), r.virtualWorkers(), r.fetchesOk(), r.measurements(),
                    r.serverTransactions(), f2(r.roundTripsPerTick()), f1(r.statementsPerTick()),
                    f2(r.backendCpuSeconds()), lag(r),
                    f1(r.machineBusyPercent()) + " (" + f1(r.othersBusyPercent()) + ")"));
        }
        md.append("\nWindow ").append(f1(runs.getFirst().windowSeconds())).append(" s after ")
                .append(runs.getFirst().warmupSeconds()).append(" s of warm-up. Platform threads: min-max sampled in"
                        + " the window. Lag quantiles are histogram bucket upper bounds (\"at most\").\n");
    }

    private void sideBySide(StringBuilder md, List<RunResult> results) {
        List<RunResult> naive = select(results, r -> r.collector().equals("naive"));
        if (naive.isEmpty()) {
            return;
        }
        md.append("\n## pgharvest against the naive per-metric collector (same window, same SQL and intervals)\n\n");
        md.append("| sources | collector | platform threads | virtual threads | CPU-s | CPU-s per 1,000 measurements"
                + " | RSS MB (mean) | heap after GC MB"
                + " | server transactions | statements (metric queries) | round trips / source / tick"
                + " | PG backend CPU-s | lag p50 / p99 / max ms | measurements |\n");
        md.append("|" + "---|".repeat(14) + "\n");
        for (RunResult n : naive) {
            Optional<RunResult> p = pgharvestScaling(results, n.sources());
            for (RunResult r : p.isPresent() ? List.of(p.get(), n) : List.of(n)) {
                md.append(row(r.sources(), r.collector(), threads(r), r.virtualWorkers(), f2(r.cpuSeconds()),
                        f3(cpuPerThousand(r)), mb(r.rssMeanKb()), mb(r.heapAfterGcKb()), r.serverTransactions(),
                        r.serverStatements() + " (" + r.metricStatements() + ")",
                        f2(r.roundTripsPerTick()), f2(r.backendCpuSeconds()), lag(r), r.measurements()));
            }
            p.ifPresent(h -> md.append(row(n.sources(), "**naive / pgharvest**",
                    ratio(n.threadsMax(), h.threadsMax()), "", ratio(n.cpuSeconds(), h.cpuSeconds()),
                    ratio(cpuPerThousand(n), cpuPerThousand(h)), ratio(n.rssMeanKb(), h.rssMeanKb()), ratio(n.heapAfterGcKb(), h.heapAfterGcKb()),
                    ratio(n.serverTransactions(), h.serverTransactions()),
                    ratio(n.metricStatements(), h.metricStatements()), "",
                    ratio(n.backendCpuSeconds(), h.backendCpuSeconds()), "", "")));
        }
        md.append("\nThreads, platform + virtual: ");
        for (RunResult n : naive) {
            pgharvestScaling(results, n.sources()).ifPresent(h -> md.append(n.sources()).append(" sources ")
                    .append(h.allThreads()).append(" vs ").append(n.allThreads()).append(" (")
                    .append(ratio(n.allThreads(), h.allThreads())).append("); "));
        }
        md.append('\n');
    }

    private void jvm(StringBuilder md, List<RunResult> results) {
        List<RunResult> defaults = select(results, r -> r.group().equals("jvm"));
        if (defaults.isEmpty()) {
            return;
        }
        md.append("\n## JVM flags: the tuned config/jvm.options (scaling run) against other flags\n\n");
        md.append("| sources | flags | CPU-s | RSS MB mean / max in window | peak RSS MB | heap after GC MB"
                + " | platform threads | start-up ms | lag p99 ms |\n");
        md.append("|" + "---|".repeat(9) + "\n");
        for (RunResult d : defaults) {
            Optional<RunResult> tuned = pgharvestScaling(results, d.sources());
            for (RunResult r : tuned.isPresent() ? List.of(tuned.get(), d) : List.of(d)) {
                md.append(row(r.sources(), r.jvm(), f2(r.cpuSeconds()), mb(r.rssMeanKb()) + " / " + mb(r.rssMaxKb()),
                        mb(r.peakRssKb()), mb(r.heapAfterGcKb()), threads(r), r.startupMillis(), f1(r.lagP99Ms())));
            }
        }
    }

    private void pgwatch(StringBuilder md, List<RunResult> runs) {
        if (runs.isEmpty()) {
            return;
        }
        // pgharvest alone on pgwatch's shape with the built-in catalog; pgwatch itself is measured
        // side by side only, by bench/pgwatch-side-by-side.py, never quoted from elsewhere.
        md.append("\n## pgwatch-shaped run, pgharvest only (PostgreSQL sink, every metric every ")
                .append(runs.getFirst().tickPeriodSeconds()).append(" s, ").append(f1(runs.getFirst().windowSeconds()))
                .append(" s window after ").append(runs.getFirst().warmupSeconds()).append(" s warm-up)\n\n");
        md.append("| collector | sources | metrics | collector CPU-s | RSS MB (mean in window) | threads (platform / virtual)"
                + " | statements on sources | transactions on sources | PostgreSQL CPU-s serving it"
                + " | CPU ms per statement | PostgreSQL CPU-s per source | measurements |\n");
        md.append("|" + "---|".repeat(12) + "\n");
        for (int sources : runs.stream().map(RunResult::sources).distinct().toList()) {
            List<RunResult> same = runs.stream().filter(r -> r.sources() == sources).toList();
            double cpu = mean(same, RunResult::cpuSeconds);
            double rss = mean(same, r -> r.rssMeanKb() / 1024.0);
            double statements = mean(same, r -> (double) r.serverStatements());
            double metricStatements = mean(same, r -> (double) r.metricStatements());
            double transactions = mean(same, r -> (double) r.serverTransactions());
            double backend = mean(same, RunResult::backendCpuSeconds);
            RunResult first = same.getFirst();
            md.append(row("pgharvest" + (same.size() > 1 ? " (mean of " + same.size() + ")" : ""), sources,
                    first.metrics(), f2(cpu), f1(rss), first.threadsMax() + " / " + first.virtualWorkers(),
                    Math.round(statements) + " (" + Math.round(metricStatements) + " metric queries)",
                    Math.round(transactions), f2(backend),
                    f3(statements == 0 ? Double.NaN : 1000 * backend / statements), f2(backend / sources),
                    Math.round(mean(same, r -> (double) r.measurements()))));
        }
    }

    private void targets(StringBuilder md, List<RunResult> results) {
        md.append("\n## Targets of issue 6\n\n| target | measured | verdict |\n|---|---|---|\n");
        List<RunResult> scaling = select(results, r -> r.group().equals("scaling") && r.collector().equals("pgharvest"));
        if (scaling.size() >= 2) {
            RunResult low = scaling.getFirst();
            RunResult high = scaling.getLast();
            int lowThreads = scaling.stream().mapToInt(RunResult::threadsMin).min().orElse(0);
            int highThreads = scaling.stream().mapToInt(RunResult::threadsMax).max().orElse(0);
            md.append(row("Platform threads flat from " + low.sources() + " to " + high.sources()
                            + " sources (within a handful)",
                    lowThreads + " .. " + highThreads + " across all scaling runs", verdict(highThreads - lowThreads <= 5)));
            double perSource = (high.rssMeanKb() - low.rssMeanKb()) / (double) (high.sources() - low.sources());
            double perSourceMax = (high.rssMaxKb() - low.rssMaxKb()) / (double) (high.sources() - low.sources());
            double heapPerSource = (high.heapAfterGcKb() - low.heapAfterGcKb()) / (double) (high.sources() - low.sources());
            md.append(row("Marginal memory per source below 150 KB", f1(perSource) + " KB per source (mean RSS "
                    + mb(low.rssMeanKb()) + " MB at " + low.sources() + ", " + mb(high.rssMeanKb()) + " MB at "
                    + high.sources() + "); from the largest RSS in each window " + f1(perSourceMax)
                    + " KB; live heap " + f1(heapPerSource) + " KB per source (heap after GC "
                    + mb(low.heapAfterGcKb()) + " -> " + mb(high.heapAfterGcKb()) + " MB)", verdict(perSource < 150)));
            String trips = scaling.stream().map(r -> r.sources() + ": " + f3(r.roundTripsPerTick()))
                    .reduce((a, b) -> a + ", " + b).orElse("");
            boolean oneTrip = scaling.stream().allMatch(r -> r.roundTripsPerTick() <= 1.05 && r.fetchesFailed() == 0);
            md.append(row("One round trip per source per tick when no metric fails",
                    "server transactions / ticks = " + trips, verdict(oneTrip)));
            md.append(row("Tick lag p99 under 100 ms at " + high.sources() + " sources",
                    "p99 <= " + f1(high.lagP99Ms()) + " ms (p50 <= " + f1(high.lagP50Ms()) + ", max <= "
                            + f1(high.lagMaxMs()) + ")", verdict(high.lagP99Ms() < 100)));
        }
        select(results, r -> r.group().equals("idle")).stream().findFirst().ifPresent(idle -> md.append(row(
                "JVM floor (RSS with no sources; stated, no target)", mb(idle.rssMeanKb()) + " MB RSS (mean in window), heap after GC "
                        + mb(idle.heapAfterGcKb()) + " MB, " + idle.threadsMax() + " platform threads", "stated")));
        for (RunResult n : select(results, r -> r.collector().equals("naive"))) {
            pgharvestScaling(results, n.sources()).ifPresent(h -> {
                double threads = (double) n.allThreads() / h.allThreads();
                double cpu = n.cpuSeconds() / h.cpuSeconds();
                double cpuPerWork = cpuPerThousand(n) / cpuPerThousand(h);
                double trips = (double) n.serverTransactions() / h.serverTransactions();
                md.append(row("Against the naive collector at " + n.sources() + " sources: >= 5x fewer threads, "
                                + ">= 3x less CPU (per measurement delivered), >= 10x fewer round trips",
                        "threads " + f1(threads) + "x, CPU " + f1(cpuPerWork) + "x per measurement (" + f1(cpu)
                                + "x in total; naive delivered " + n.measurements() + ", pgharvest " + h.measurements()
                                + "), round trips " + f1(trips) + "x",
                        verdict(threads >= 5) + " / " + verdict(cpuPerWork >= 3) + " / " + verdict(trips >= 10)));
            });
        }
    }

    /**
     * CPU-seconds per 1,000 measurements delivered: the fair CPU comparison when a collector
     * falls behind its schedule and so does less work in the window than the other.
     */
    private static double cpuPerThousand(RunResult r) {
        return r.measurements() == 0 ? Double.NaN : 1000 * r.cpuSeconds() / r.measurements();
    }

    private static Optional<RunResult> pgharvestScaling(List<RunResult> results, int sources) {
        return results.stream().filter(r -> r.group().equals("scaling") && r.collector().equals("pgharvest")
                && r.sources() == sources).findFirst();
    }

    private static double mean(List<RunResult> runs, java.util.function.ToDoubleFunction<RunResult> f) {
        return runs.stream().mapToDouble(f).average().orElse(Double.NaN);
    }

    private static String row(Object... cells) {
        var parts = new ArrayList<String>();
        for (Object cell : cells) {
            parts.add(String.valueOf(cell));
        }
        return "| " + String.join(" | ", parts) + " |\n";
    }

    private static String threads(RunResult r) {
        return r.threadsMin() == r.threadsMax() ? Integer.toString(r.threadsMax()) : r.threadsMin() + "-" + r.threadsMax();
    }

    private static String lag(RunResult r) {
        return f1(r.lagP50Ms()) + " / " + f1(r.lagP99Ms()) + " / " + f1(r.lagMaxMs());
    }

    private static String verdict(boolean met) {
        return met ? "met" : "**missed**";
    }

    private static String ratio(double a, double b) {
        return b == 0 ? "n/a" : f1(a / b) + "x";
    }

    static String mb(long kb) {
        return String.format(Locale.ROOT, "%.1f", kb / 1024.0);
    }

    static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static String f3(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
