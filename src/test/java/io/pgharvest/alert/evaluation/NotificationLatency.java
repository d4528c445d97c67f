package io.pgharvest.alert.evaluation;

import io.pgharvest.alert.notify.ReceiverDefinition;
import io.pgharvest.alert.notify.ReceiverRoute;
import io.pgharvest.alert.notify.dispatch.OutboxDispatcher;
import io.pgharvest.alert.notify.dispatch.OutboxNotifications;
import io.pgharvest.alert.notify.dispatch.ReceiverBinder;
import io.pgharvest.alert.notify.dispatch.ReceiverCatalog;
import io.pgharvest.alert.notify.dispatch.NotifyHarness;
import io.pgharvest.alert.notify.dispatch.TestWebhook;
import io.pgharvest.alert.notify.file.FileNotifyStore;
import io.pgharvest.alert.pack.BuiltInRules;
import io.pgharvest.alert.rule.AlertRuleBody;
import io.pgharvest.model.Measurement;
import io.pgharvest.support.Backoff;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Condition to notification (for {@link AlertEvaluationBench}, not a test): the built-in pack with
 * {@code PostgresSourceDown} at {@code for: 0}, every source's healthy measurements evaluated once,
 * then source after source reports {@code instance_up = 0}; the time from handing that batch to the
 * evaluator to its firing arriving at a real webhook receiver (a JDK HTTP server on loopback),
 * through the file outbox and the dispatcher with the production settings. One alert at a time, on
 * the real clock; the first {@link #WARM_UP} samples are dropped (JIT).
 */
final class NotificationLatency {

    private static final int SAMPLES = 300;
    private static final int WARM_UP = 50;
    private static final OutboxDispatcher.Tuning PRODUCTION = new OutboxDispatcher.Tuning(
            new Backoff(Duration.ofSeconds(2), Duration.ofMinutes(5)), Duration.ofHours(24), Duration.ofSeconds(1),
            Duration.ofMinutes(1), Duration.ofDays(7));

    private NotificationLatency() {
    }

    static void print(int sources, Path dir) throws Exception {
        Map<String, AlertRuleBody> pack = new LinkedHashMap<>(BuiltInRules.load());
        pack.computeIfPresent("PostgresSourceDown", (name, rule) -> new AlertRuleBody(rule.name(), rule.metric(),
                rule.condition(), "0s", rule.keepFiringFor(), rule.severity(), rule.labels(), rule.summary(),
                rule.description(), rule.runbook(), rule.sources(), rule.params(), rule.overrides(), rule.enabled()));
        SyntheticFleet fleet = SyntheticFleet.standard(sources, pack);
        var store = new FileNotifyStore(Files.createDirectories(dir.resolve("notify")));
        Clock clock = Clock.systemUTC();
        try (var hook = new TestWebhook();
                var catalog = new ReceiverCatalog(store, new ReceiverBinder(NotifyHarness.REGISTRY), clock,
                        Duration.ofSeconds(30))) {
            var dispatcher = new OutboxDispatcher(store, catalog, clock, PRODUCTION);
            store.createReceiver(new ReceiverDefinition("hook", "webhook", Map.of("url", hook.url("/in")),
                    ReceiverRoute.EVERYTHING));
            catalog.refresh();
            dispatcher.start();
            AlertEvaluator evaluator = AlertEvaluationBench.evaluator(pack, Files.createDirectories(dir.resolve("alerts")),
                    new OutboxNotifications(store, catalog, dispatcher, clock, Duration.ofMinutes(1)), clock);
            for (int source = 0; source < sources; source++) {
                for (SyntheticFleet.MetricShape metric : fleet.metrics()) {
                    evaluator.evaluate(List.of(fleet.measurement(source, metric, 0, clock.instant(), false)));
                }
            }
            long[] micros = new long[Math.min(SAMPLES, sources)];
            for (int i = 0; i < micros.length; i++) {
                var down = new Measurement(SyntheticFleet.sourceName(i), "instance_up", clock.instant(),
                        List.of(new Measurement.Row(Map.of("instance_up", 0.0), Map.of())), Map.of());
                long started = System.nanoTime();
                evaluator.evaluate(List.of(down));
                awaitDeliveries(hook, i + 1);
                micros[i] = (System.nanoTime() - started) / 1000;
            }
            dispatcher.stop();
            dispatcher.awaitStop(Duration.ofSeconds(10));
            long[] measured = Arrays.copyOfRange(micros, Math.min(WARM_UP, micros.length / 2), micros.length);
            Arrays.sort(measured);
            System.out.printf("condition to webhook (for: 0): samples=%d p50=%.1fms p99=%.1fms max=%.1fms load=%s%n",
                    measured.length, percentile(measured, 0.50) / 1000.0, percentile(measured, 0.99) / 1000.0,
                    measured[measured.length - 1] / 1000.0, AlertEvaluationBench.load());
        }
    }

    private static void awaitDeliveries(TestWebhook hook, int count) {
        Instant deadline = Instant.now().plusSeconds(30);
        while (hook.received().size() < count) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the webhook received " + hook.received().size() + " of " + count
                        + " firings within 30 s");
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(20));
        }
    }

    private static long percentile(long[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(quantile * sorted.length) - 1)];
    }
}
