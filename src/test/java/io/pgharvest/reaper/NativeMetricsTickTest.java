package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.ServerLocality;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Native metrics run on their schedule after the tick's round trip, deliver like SQL metrics, and
 * fail alone: a throwing or unavailable one shows in the status and never costs a SQL metric its
 * measurement.
 */
class NativeMetricsTickTest {

    private static final TestPostgres pg = TestPostgres.shared();

    @Test
    void nativeMetricsDeliverOnTheirScheduleAndFailWithoutDisturbingSqlMetrics() throws Exception {
        pg.createDatabase("native_db");
        var seen = new java.util.concurrent.ConcurrentLinkedQueue<NativeTarget>();
        var perCollector = new AtomicInteger();
        var databases = new java.util.concurrent.ConcurrentLinkedQueue<Map<String, Object>>();
        NativeMetric working = fake("cpu_load", () -> {
            int mine = perCollector.incrementAndGet(); // state of one source's collector
            return target -> {
                seen.add(target);
                databases.addAll(target.sql().query("select current_database() as db"));
                return List.of(new Measurement.Row(Map.of("load_1min", 0.5, "calls", (long) mine), Map.of()));
            };
        });
        NativeMetric throwing = fake("psutil_mem", () -> target -> {
            throw new IllegalStateException("probe exploded");
        });
        NativeMetric unavailable = fake("psutil_disk", () -> target -> {
            throw new NativeMetric.Unavailable("not on this machine, for the test");
        });
        var kit = new ReaperTestKit(new NativeMetricRegistry(List.of(working, throwing, unavailable),
                ServerLocality.system()));
        List<MetricDefinition> metrics = List.of(metric("ping", "select 1 as v"),
                nativeDefinition("host_load", "cpu_load", "cpu_load"), nativeDefinition("psutil_mem", "psutil_mem", null),
                nativeDefinition("psutil_disk", "psutil_disk", null));
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.700Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("nat", pg.connStr("native_db"),
                Map.of("ping", 10, "host_load", 20, "psutil_mem", 10, "psutil_disk", 10)), metrics), kit.context, timer);
        SourceRuntimeStatus status = runTicks(reaper, timer, 4); // grid points at 0, 10, 20, 30 s

        assertThat(kit.publisher.of("nat", "ping")).hasSize(4);
        List<Measurement> load = kit.publisher.of("nat", "cpu_load"); // the definition's storage name
        assertThat(load).hasSize(2); // every 20 s
        assertThat(load).allSatisfy(m -> {
            assertThat(m.tags()).containsEntry("env", "test");
            assertThat(m.rows()).singleElement().satisfies(r -> assertThat(r.values()).containsEntry("load_1min", 0.5));
        });
        assertThat(perCollector).hasValue(1); // one collector kept for the source between ticks
        assertThat(seen).allSatisfy(t -> {
            assertThat(t.source()).isEqualTo("nat");
            assertThat(t.database()).isEqualTo("native_db");
            assertThat(t.onThisHost()).isTrue(); // the test server listens on loopback
            assertThat(t.interval()).isEqualTo(Duration.ofSeconds(20));
        });
        // The metric's own queries run on the source's session.
        assertThat(databases).hasSize(2).allSatisfy(row -> assertThat(row).containsEntry("db", "native_db"));
        assertThat(kit.publisher.of("nat", "psutil_mem")).isEmpty();
        assertThat(kit.publisher.of("nat", "psutil_disk")).isEmpty();

        var byName = status.metrics().stream().collect(Collectors.toMap(MetricRuntimeStatus::name, m -> m));
        assertThat(byName.get("host_load").lane()).isEqualTo(MetricLane.NATIVE);
        assertThat(byName.get("host_load").lastSuccess()).isNotNull();
        assertThat(byName.get("psutil_mem").lane()).isEqualTo(MetricLane.NATIVE);
        assertThat(byName.get("psutil_mem").lastError()).contains("probe exploded");
        assertThat(byName.get("psutil_disk").lane()).isEqualTo(MetricLane.UNAVAILABLE);
        assertThat(byName.get("psutil_disk").lastError()).contains("not collected: not on this machine, for the test");
        assertThat(byName.get("ping").lane()).isEqualTo(MetricLane.PIPELINE);
        assertThat(status.connected()).isTrue();
    }

    @Test
    void aNativeMetricWithoutAnImplementationIsUnavailableAndSaysSo() throws Exception {
        pg.createDatabase("native_db");
        var kit = new ReaperTestKit(NativeMetricRegistry.none());
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.700Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("none", pg.connStr("native_db"),
                Map.of("ping", 10, "cpu_load", 10)), List.of(metric("ping", "select 1 as v"),
                nativeDefinition("cpu_load", "cpu_load", null))), kit.context, timer);
        SourceRuntimeStatus status = runTicks(reaper, timer, 1);

        assertThat(kit.publisher.of("none", "ping")).hasSize(1);
        MetricRuntimeStatus load = status.metrics().stream().filter(m -> m.name().equals("cpu_load")).findFirst()
                .orElseThrow();
        assertThat(load.lane()).isEqualTo(MetricLane.UNAVAILABLE);
        assertThat(load.lastError()).contains("no implementation of 'cpu_load'");
    }

    @Test
    void aNativeMetricThatFindsTheSessionGoneRunsAgainOnceReconnectedWithinTheTick() throws Exception {
        pg.createDatabase("native_db");
        var calls = new AtomicInteger();
        NativeMetric killsItsSession = fake("cpu_load", () -> target -> {
            Object pid = target.sql().query("select pg_backend_pid() as pid").getFirst().get("pid");
            if (calls.incrementAndGet() == 1) {
                pg.execute("postgres", "select pg_terminate_backend(" + pid + ")");
                target.sql().query("select 1 as one"); // finds the session gone
            }
            return List.of(new Measurement.Row(Map.of("load_1min", 1.0), Map.of()));
        });
        var kit = new ReaperTestKit(new NativeMetricRegistry(List.of(killsItsSession), ServerLocality.system()));
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.700Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("gone", pg.connStr("native_db"),
                Map.of("cpu_load", 10)), List.of(nativeDefinition("cpu_load", "cpu_load", null))), kit.context, timer);
        runTicks(reaper, timer, 1);

        assertThat(calls).hasValue(2);
        assertThat(kit.publisher.of("gone", "cpu_load")).hasSize(1);
        assertThat(kit.publisher.of("gone", "instance_up")).singleElement().satisfies(m ->
                assertThat(m.rows().getFirst().values()).containsEntry("instance_up", 1L));
    }

    @Test
    void aNativeMetricsQueryIsHeldToTheRulesOfMetricSql() throws Exception {
        pg.createDatabase("native_db");
        NativeMetric writes = fake("cpu_load", () -> target -> {
            target.sql().query("select set_config('work_mem', '1MB', false) as w");
            return List.of();
        });
        var kit = new ReaperTestKit(new NativeMetricRegistry(List.of(writes), ServerLocality.system()));
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.700Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("rules", pg.connStr("native_db"),
                Map.of("cpu_load", 10)), List.of(nativeDefinition("cpu_load", "cpu_load", null))), kit.context, timer);
        SourceRuntimeStatus status = runTicks(reaper, timer, 1);

        assertThat(status.metrics()).singleElement().satisfies(m -> {
            assertThat(m.lane()).isEqualTo(MetricLane.NATIVE);
            assertThat(m.lastError()).contains("refused to send a native metric's query").contains("set_config");
        });
        assertThat(status.connected()).isTrue();
    }

    /** Starts the reaper, lets it run {@code ticks} ticks and stops it; its status after the last tick. */
    private static SourceRuntimeStatus runTicks(SourceReaper reaper, ManualTickTimer timer, int ticks)
            throws InterruptedException {
        reaper.start();
        for (int sleeps = 1; sleeps <= ticks; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
            timer.awaitSleepRequests(sleeps + 1);
        }
        SourceRuntimeStatus status = reaper.status();
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        return status;
    }

    private static MetricDefinition nativeDefinition(String name, String implementation, String storageName) {
        return MetricDefinition.nativeMetric(name, "native test metric " + name, List.of("*"), NodeStatus.ANY,
                storageName, implementation);
    }

    private static NativeMetric fake(String name, java.util.function.Supplier<NativeMetric.Collector> collectors) {
        return new NativeMetric() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Collector newCollector() {
                return collectors.get();
            }
        };
    }
}
