package io.pgharvest.alert.evaluation;

import io.pgharvest.alert.AlertNotifications;
import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.pack.BuiltInRules;
import io.pgharvest.alert.rule.AlertRuleBody;
import io.pgharvest.alert.rule.MetricColumns;
import io.pgharvest.alert.rule.MetricLookup;
import io.pgharvest.alert.rule.RuleCompiler;
import io.pgharvest.alert.store.AlertRules;
import io.pgharvest.alert.store.FileAlertStorage;
import io.pgharvest.model.Measurement;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ObjectName;

/**
 * Alert evaluation's cost at a fleet's size (bench/alert-bench.sh runs it; not a test): the built-in
 * pack over {@link SyntheticFleet}'s measurements of {@code sources} sources, evaluated on this
 * thread as the feed's thread does, one reaper tick's batch at a time, a round every 30 simulated
 * seconds, alert state in the file storage of a temp directory. Simulated time runs as fast as the
 * evaluator goes: the CPU time of one simulated minute is what evaluation costs per minute of a real
 * fleet. Prints the CPU per minute with every source healthy and with every source in trouble (its
 * alerts firing, nothing changing), and the heap each alert state takes (a class histogram's total,
 * after a full collection, before and after the alerts exist, over their number). Then
 * {@link NotificationLatency}: condition to webhook delivery.
 */
public final class AlertEvaluationBench {

    private static final Duration ROUND = Duration.ofSeconds(30);
    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

    private final SyntheticFleet fleet;
    private final AlertEvaluator evaluator;
    private final SimulatedClock clock = new SimulatedClock();
    private final AtomicLong transitions = new AtomicLong();
    private long second;

    private AlertEvaluationBench(int sources, Path dir) throws Exception {
        Map<String, AlertRuleBody> pack = BuiltInRules.load();
        this.fleet = SyntheticFleet.standard(sources, pack);
        AlertNotifications counting = new AlertNotifications() {
            @Override
            public void transition(AlertTransition transition) {
                transitions.incrementAndGet();
            }

            @Override
            public void stillFiring(Collection<AlertTransition> firing) {
                // the outbox's cost, not evaluation's
            }
        };
        this.evaluator = evaluator(pack, dir, counting, clock);
    }

    /** An evaluator of {@code pack} as the application wires one, its state in files under {@code dir}. */
    static AlertEvaluator evaluator(Map<String, AlertRuleBody> pack, Path dir, AlertNotifications notifications,
            java.time.Clock clock) {
        MetricColumns columns = MetricColumns.builtIn();
        MetricLookup catalog = new MetricLookup() {
            @Override
            public boolean exists(String metric) {
                return true;
            }

            @Override
            public Optional<Set<String>> columns(String metric) {
                return columns.of(metric);
            }
        };
        var storage = new FileAlertStorage(dir);
        var rules = new AlertRules(storage, new RuleCompiler(10_000), catalog, catalog, pack);
        return new AlertEvaluator(rules, name -> null, name -> true, new AlertBook(storage), () -> List.of(notifications),
                clock, ROUND);
    }

    public static void main(String[] arguments) throws Exception {
        int sources = arguments.length > 0 ? Integer.parseInt(arguments[0]) : 1000;
        Path dir = Files.createTempDirectory("alert-bench");
        var bench = new AlertEvaluationBench(sources, dir);
        System.out.printf("sources=%d metrics=%s load=%s%n", sources,
                bench.fleet.metrics().stream().map(m -> m.name() + "@" + m.intervalSeconds() + "s").toList(), load());
        bench.run(3, false); // JIT warm-up
        long healthy = bench.transitions.get();
        double healthyCpu = bench.run(5, false);
        System.out.printf("healthy: cpu-per-minute=%.0fms transitions-after-warm-up=%d states=%d%n", healthyCpu,
                bench.transitions.get() - healthy, bench.evaluator.current().size());

        long before = heapBytes();
        bench.run(11, true); // past the pack's longest for (10m): everything that holds fires
        long after = heapBytes();
        int states = bench.evaluator.current().size();
        long firing = bench.evaluator.current().stream().filter(s -> s.firingSince() != null).count();
        double troubledCpu = bench.run(5, true);
        System.out.printf("in trouble: states=%d firing=%d heap-per-state=%.0fB cpu-per-minute=%.0fms%n", states, firing,
                (after - before) / (double) states, troubledCpu);

        NotificationLatency.print(sources, Files.createTempDirectory("alert-bench-latency"));
    }

    /** Evaluates {@code minutes} simulated minutes; returns this thread's CPU milliseconds per minute. */
    private double run(int minutes, boolean inTrouble) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpu = 0;
        for (int m = 0; m < minutes; m++) {
            List<List<Measurement>> minute = new ArrayList<>(); // built first: generating rows is not evaluating
            List<Long> rounds = new ArrayList<>();
            for (int s = 0; s < 60; s++, second++) {
                Instant at = T0.plusSeconds(second);
                for (int source = 0; source < fleet.sources(); source++) {
                    List<Measurement> batch = fleet.batchAt(source, second, at, inTrouble);
                    if (!batch.isEmpty()) {
                        minute.add(batch);
                    }
                }
                rounds.add((long) minute.size());
            }
            long started = threads.getCurrentThreadCpuTime();
            int next = 0;
            for (int s = 0; s < 60; s++) {
                clock.set(T0.plusSeconds(second - 60 + s));
                for (long end = rounds.get(s); next < end; next++) {
                    evaluator.evaluate(minute.get(next));
                }
                if ((second - 60 + s) % ROUND.toSeconds() == 0) {
                    evaluator.round();
                }
            }
            cpu += threads.getCurrentThreadCpuTime() - started;
        }
        return cpu / 1e6 / minutes;
    }

    /** The heap's live bytes by a class histogram (which collects first), as {@code jcmd GC.class_histogram} has it. */
    private static long heapBytes() throws Exception {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        String total = histogram.lines().filter(line -> line.startsWith("Total")).findFirst().orElseThrow();
        String[] fields = total.trim().split("\\s+");
        return Long.parseLong(fields[fields.length - 1]);
    }

    /** The simulated second the evaluator sees. */
    private static final class SimulatedClock extends java.time.Clock {

        private volatile Instant now = T0;

        void set(Instant instant) {
            now = instant;
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
