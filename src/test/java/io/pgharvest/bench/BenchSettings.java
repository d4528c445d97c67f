package io.pgharvest.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The harness's parameters, from {@code bench.*} system properties (the Maven profile passes
 * them on; see docs/performance.md). {@code bench.quick=true} changes the defaults to a run of a
 * few minutes; explicit properties still win.
 *
 * @param runs which groups to run: idle, scaling, naive, jvm, pgwatch
 * @param scalingSources source counts of the scaling runs (and of the naive runs)
 * @param warmup time between the last source registered and the window's start
 * @param window measurement window of scaling, naive, idle and jvm runs
 * @param databasesPerServer sources (databases) per monitored PostgreSQL server; more sources
 *     start more servers
 * @param preset the catalog preset of the scaling runs
 * @param intervalDivisor the preset's intervals are divided by this (rounded up, at least 1 s)
 * @param jvmSources source counts at which other JVM flags are measured against the tuned ones
 * @param jvmVariants the other JVM flags: "default" (the JVM's own) or options files
 * @param pgwatchSources source counts of the pgwatch-shaped runs
 * @param pgwatchInterval interval of every metric in the pgwatch-shaped runs, in seconds
 * @param pgwatchWarmup warm-up of the pgwatch-shaped runs
 * @param pgwatchWindow window of the pgwatch-shaped runs
 * @param pgwatchRepeats how many times each pgwatch-shaped run is repeated (means are reported)
 * @param pgwatchSink sink of the pgwatch-shaped runs: postgres or jsonfile
 * @param java the java launcher of the measured processes (default: the one running the harness,
 *     which the Maven profile takes from the toolchain)
 * @param jar the pgharvest fat jar
 * @param jvmOptions the tuned JVM options file ({@code java @file} syntax)
 * @param outputDir where results.json and results.md are written
 * @param basedir the project directory; relative paths are resolved against it
 * @param diagnostics adds native memory tracking to the measured JVMs and saves a class
 *     histogram and the native memory summary of each run under {@code <output>/diagnostics}
 */
record BenchSettings(Set<String> runs, List<Integer> scalingSources, Duration warmup, Duration window,
        int databasesPerServer, String preset, int intervalDivisor, List<Integer> jvmSources, List<String> jvmVariants, List<Integer> pgwatchSources,
        int pgwatchInterval, Duration pgwatchWarmup, Duration pgwatchWindow, int pgwatchRepeats, String pgwatchSink,
        Path java, Path jar, Path jvmOptions, Path outputDir, Path basedir, boolean diagnostics) {

    static final Set<String> ALL_RUNS = Set.of("idle", "scaling", "naive", "jvm", "pgwatch");

    BenchSettings {
        runs = Set.copyOf(runs);
        scalingSources = List.copyOf(scalingSources);
        jvmSources = List.copyOf(jvmSources);
        jvmVariants = List.copyOf(jvmVariants);
        pgwatchSources = List.copyOf(pgwatchSources);
        for (String run : runs) {
            if (!ALL_RUNS.contains(run)) {
                throw new IllegalArgumentException("bench.runs: unknown run '" + run + "'; use " + ALL_RUNS);
            }
        }
    }

    static BenchSettings fromSystemProperties() {
        boolean quick = Boolean.parseBoolean(property("bench.quick", "false"));
        Path basedir = Path.of(property("bench.basedir", System.getProperty("user.dir")));
        return new BenchSettings(
                new LinkedHashSet<>(list("bench.runs", "idle,scaling,naive,jvm,pgwatch")),
                integers("bench.sources", quick ? "10,100" : "10,100,500,1000"),
                duration("bench.warmup", quick ? "15s" : "45s"),
                duration("bench.window", quick ? "45s" : "90s"),
                Integer.parseInt(property("bench.databases-per-server", "100")),
                property("bench.preset", "exhaustive"),
                Integer.parseInt(property("bench.interval-divisor", "2")),
                integers("bench.jvm.sources", quick ? "10" : "10,1000"),
                list("bench.jvm.variants", "default"),
                integers("bench.pgwatch.sources", quick ? "6" : "6,60"),
                Integer.parseInt(property("bench.pgwatch.interval", "30")),
                duration("bench.pgwatch.warmup", quick ? "20s" : "60s"),
                duration("bench.pgwatch.window", quick ? "60s" : "240s"),
                Integer.parseInt(property("bench.pgwatch.repeats", "1")),
                property("bench.pgwatch.sink", "postgres"),
                Path.of(property("bench.java",
                        ProcessHandle.current().info().command().orElseThrow(
                                () -> new IllegalStateException("Cannot tell which java runs the harness; set bench.java")))),
                basedir.resolve(property("bench.jar", "target/pgharvest.jar")),
                basedir.resolve(property("bench.jvm-options", "config/jvm.options")),
                basedir.resolve(property("bench.output", "target/benchmark")),
                basedir,
                Boolean.parseBoolean(property("bench.diagnostics", "false")));
    }

    /**
     * A system property, or {@code defaults} when it is unset or blank (the Maven profile passes
     * every bench property, blank unless given on the command line).
     */
    static String property(String name, String defaults) {
        String value = System.getProperty(name);
        return value == null || value.isBlank() ? defaults : value;
    }

    boolean runs(String group) {
        return runs.contains(group);
    }

    int maxSources() {
        int max = 1;
        for (List<Integer> counts : List.of(runs("scaling") || runs("naive") ? scalingSources : List.<Integer>of(),
                runs("jvm") ? jvmSources : List.<Integer>of(), runs("pgwatch") ? pgwatchSources : List.<Integer>of())) {
            for (int n : counts) {
                max = Math.max(max, n);
            }
        }
        return max;
    }

    private static List<String> list(String property, String defaults) {
        return Arrays.stream(property(property, defaults).split(","))
                .map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    private static List<Integer> integers(String property, String defaults) {
        try {
            return list(property, defaults).stream().map(Integer::parseInt).toList();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be a comma-separated list of integers", e);
        }
    }

    /** "90s", "4m", "500ms" or ISO-8601 ("PT4M"). */
    static Duration duration(String property, String defaults) {
        String text = property(property, defaults).strip().toLowerCase(Locale.ROOT);
        try {
            if (text.startsWith("pt")) {
                return Duration.parse(text.toUpperCase(Locale.ROOT));
            }
            if (text.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            }
            long amount = Long.parseLong(text.substring(0, text.length() - 1));
            return switch (text.charAt(text.length() - 1)) {
                case 's' -> Duration.ofSeconds(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 'h' -> Duration.ofHours(amount);
                default -> throw new IllegalArgumentException("unit");
            };
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(property + " must be a duration such as 60s, 4m or 500ms, not '"
                    + text + "'", e);
        }
    }
}
