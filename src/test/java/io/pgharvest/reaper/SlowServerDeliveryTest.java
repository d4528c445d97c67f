package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metricWithTimeout;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A slow server still delivers every healthy metric, on every tick (issue 51). Every statement
 * here is slowed (a padded read), one overruns its time limit in the middle of the pipeline, and
 * an instance-level metric, whose one fetch every source of the instance shares, sits behind it.
 * Before, the round trip's overrun cost the whole tick: no row at all, the schedule stretched, and
 * at 300 databases on one server the shared results stopped arriving for every source. Now what
 * came before the overrun is delivered, the rest is sent again, and the metric that keeps
 * overrunning is named in the source's status and its meter, never skipped silently.
 */
class SlowServerDeliveryTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final int TICKS = 4;

    @Test
    void everyHealthyMetricArrivesOnEveryTickAndTheOverrunningOneIsReported() throws Exception {
        String db = "slow_server_db";
        pg.createDatabase(db);
        var metrics = new ArrayList<MetricDefinition>();
        var selection = new LinkedHashMap<String, Integer>();
        var healthy = new ArrayList<String>();
        for (int i = 1; i <= 6; i++) {
            String name = "h%02d".formatted(i);
            metrics.add(metricWithTimeout(name, "select " + i + " as v from (select pg_sleep(0.05)) as padded", 1));
            healthy.add(name);
        }
        // Due metrics run in name order: the overrun stops the round trip after h03.
        metrics.add(metricWithTimeout("h03_overruns", "select pg_sleep(3) as slept", 1));
        metrics.add(new MetricDefinition("z_shared", "instance-level", Map.of(10,
                "select count(*) as databases from pg_database, (select pg_sleep(0.05)) as padded"),
                List.of("*"), true, NodeStatus.ANY, null, null, 1));
        healthy.add("z_shared");
        metrics.forEach(m -> selection.put(m.name(), 10));
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.300Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("slow", pg.connStr(db), selection), metrics),
                kit.context, timer);
        reaper.start();
        var deliveredPerTick = new ArrayList<List<String>>();
        SourceRuntimeStatus status = null;
        for (int sleeps = 1; sleeps <= TICKS; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
            timer.awaitSleepRequests(sleeps + 1);
            status = reaper.status();
            Instant tick = status.lastTickStart();
            deliveredPerTick.add(kit.publisher.all().stream().filter(m -> m.time().equals(tick))
                    .map(m -> m.metric()).toList());
        }
        double undeliveredGauge = kit.registry.get("pgharvest.metrics.undelivered").tag("source", "slow").gauge().value();
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();

        for (int tick = 1; tick <= TICKS; tick++) {
            assertThat(deliveredPerTick.get(tick - 1)).as("tick %d", tick).containsAll(healthy)
                    .doesNotContain("h03_overruns");
        }
        assertThat(status.stretchedTicks()).as("the server answered in time").isZero();
        Map<String, MetricRuntimeStatus> byName = new LinkedHashMap<>();
        status.metrics().forEach(m -> byName.put(m.name(), m));
        healthy.forEach(m -> assertThat(byName.get(m).lane()).as(m).isEqualTo(MetricLane.PIPELINE));
        // Three overruns in a row while the server answered the others: slow on its own.
        assertThat(byName.get("h03_overruns").lane()).isEqualTo(MetricLane.SOLO);
        assertThat(byName.get("h03_overruns").lastError()).contains("timed out").contains("57014");
        // Nothing delivered for three of its intervals (ticks at 0, 10, 20 and 30 s): reported.
        assertThat(status.undeliveredMetrics()).containsExactly("h03_overruns");
        assertThat(undeliveredGauge).isEqualTo(1.0);
    }
}
