package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.metricWithTimeout;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** One broken and one slow metric never cost the healthy ones a measurement. */
class FailureIsolationTest {

    private static final TestPostgres pg = TestPostgres.shared();
    /** More extra round trips than a tick has metrics (BoundedRoundTripsTest covers the default). */
    private static final int MANY_ROUND_TRIPS = 32;

    @Test
    void goodMetricsDeliverOnEveryTickWhileBrokenAndSlowOnesAreIsolated() throws Exception {
        pg.createDatabase("isolation_db");
        var metrics = new ArrayList<MetricDefinition>();
        var selection = new LinkedHashMap<String, Integer>();
        for (int i = 1; i <= 10; i++) {
            metrics.add(metric("good%02d".formatted(i), "select " + i + " as v"));
            selection.put("good%02d".formatted(i), 10);
        }
        metrics.add(metric("broken", "select * from no_such_table"));
        metrics.add(metricWithTimeout("slow", "select pg_sleep(5) as slept", 1));
        selection.put("broken", 10);
        selection.put("slow", 10);
        // Allowance for every metric alone: the culprits are found on the first tick.
        var kit = new ReaperTestKit(MANY_ROUND_TRIPS);
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.700Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source("iso", pg.connStr("isolation_db"), selection), metrics),
                kit.context, timer);
        reaper.start();
        int ticks = 4;
        var tickDurations = new ArrayList<Duration>();
        for (int sleeps = 1; sleeps <= ticks; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
            timer.awaitSleepRequests(sleeps + 1);
            tickDurations.add(reaper.status().lastTickDuration());
        }
        SourceRuntimeStatus status = reaper.status();
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();

        Map<Instant, Long> goodPerTick = kit.publisher.all().stream()
                .filter(m -> m.metric().startsWith("good"))
                .collect(Collectors.groupingBy(Measurement::time, Collectors.counting()));
        assertThat(goodPerTick).hasSize(ticks).allSatisfy((tick, count) -> assertThat(count).isEqualTo(10L));
        assertThat(kit.publisher.of("iso", "broken")).isEmpty();
        assertThat(kit.publisher.of("iso", "slow")).isEmpty();

        var byName = status.metrics().stream().collect(Collectors.toMap(MetricRuntimeStatus::name, m -> m));
        assertThat(byName.get("broken").lane()).isEqualTo(MetricLane.SOLO);
        assertThat(byName.get("broken").lastError()).contains("no_such_table").contains("42P01");
        assertThat(byName.get("slow").lane()).isEqualTo(MetricLane.SOLO);
        assertThat(byName.get("slow").lastError()).contains("timed out after 1000 ms");
        assertThat(byName.get("good05").lane()).isEqualTo(MetricLane.PIPELINE);
        assertThat(byName.get("good05").lastSuccess()).isNotNull();
        // The slow metric sleeps 5 s but the server cancels it at 1 s: a tick stays far below 5 s.
        assertThat(tickDurations).allSatisfy(d -> assertThat(d).isLessThan(Duration.ofMillis(4_000)));
        assertThat(status.connected()).isTrue();
    }

    @Test
    void anIsolatedMetricReturnsToThePipelineOnceItSucceedsAfterTheCapWhenAnObjectWasMissing() throws Exception {
        pg.createDatabase("isolation_db");
        pg.execute("isolation_db", "drop table if exists flaky_target");
        var metrics = java.util.List.of(metric("steady", "select 1 as v"),
                metric("flaky", "select count(*) as n from public.flaky_target"));
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.300Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(
                source("flaky", pg.connStr("isolation_db"), Map.of("steady", 5, "flaky", 5)), metrics),
                kit.context, timer);
        reaper.start();
        timer.advanceTo(timer.awaitSleepRequests(1));
        timer.awaitSleepRequests(2);
        assertThat(lane(reaper, "flaky")).isEqualTo(MetricLane.SOLO);

        pg.execute("isolation_db", "create table flaky_target(id int)");
        // The table was missing (42P01): the metric waits the solo lane's cap (the kit's 30 s, six
        // ticks of 5 s) before it is tried again, however soon the table appears.
        int sleeps = 2;
        for (; sleeps <= 6; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
            timer.awaitSleepRequests(sleeps + 1);
            assertThat(lane(reaper, "flaky")).as("tick %d", sleeps).isEqualTo(MetricLane.SOLO);
        }
        assertThat(kit.publisher.of("flaky", "flaky")).isEmpty();
        timer.advanceTo(timer.awaitSleepRequests(sleeps));
        timer.awaitSleepRequests(sleeps + 1);
        assertThat(lane(reaper, "flaky")).isEqualTo(MetricLane.PIPELINE);
        assertThat(kit.publisher.of("flaky", "flaky")).hasSize(1);
        assertThat(kit.publisher.of("flaky", "steady")).hasSize(7);
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        pg.execute("isolation_db", "drop table flaky_target");
    }

    @Test
    void aMetricFailingAtRunTimeIsRetriedAtItsNextRegularRun() throws Exception {
        pg.createDatabase("isolation_db");
        pg.execute("isolation_db", "drop table if exists divisor; create table divisor(d int); insert into divisor values (0)");
        var metrics = java.util.List.of(metric("steady", "select 1 as v"),
                metric("divides", "select 10 / (select d from public.divisor) as quotient"));
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.300Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(
                source("divides", pg.connStr("isolation_db"), Map.of("steady", 5, "divides", 5)), metrics),
                kit.context, timer);
        reaper.start();
        timer.advanceTo(timer.awaitSleepRequests(1));
        timer.awaitSleepRequests(2);
        assertThat(lane(reaper, "divides")).isEqualTo(MetricLane.SOLO);

        // division_by_zero (22012) is no missing object: retried on the next tick, 5 s later.
        pg.execute("isolation_db", "update divisor set d = 2");
        timer.advanceTo(timer.awaitSleepRequests(2));
        timer.awaitSleepRequests(3);
        assertThat(lane(reaper, "divides")).isEqualTo(MetricLane.PIPELINE);
        assertThat(kit.publisher.of("divides", "divides")).singleElement()
                .satisfies(m -> assertThat(((Number) m.rows().getFirst().values().get("quotient")).longValue()).isEqualTo(5));
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        pg.execute("isolation_db", "drop table divisor");
    }

    private static MetricLane lane(SourceReaper reaper, String metric) {
        return reaper.status().metrics().stream().filter(m -> m.name().equals(metric)).findFirst()
                .orElseThrow().lane();
    }

    @Test
    void aMetricWithSeveralStatementsIsRefusedAndTheOthersKeepTheirPipeline() throws Exception {
        pg.createDatabase("isolation_db");
        var metrics = java.util.List.of(metric("plain", "select 1 as v"),
                metric("two_statements", "select 1 as first; select 2 as second"));
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.400Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(
                source("multi", pg.connStr("isolation_db"), Map.of("plain", 5, "two_statements", 5)), metrics),
                kit.context, timer);
        reaper.start();
        for (int sleeps = 1; sleeps <= 4; sleeps++) {
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
        }
        timer.awaitSleepRequests(5);
        var refused = reaper.status().metrics().stream().filter(m -> m.name().equals("two_statements"))
                .findFirst().orElseThrow();
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();

        // Several statements could end pgharvest's read-only transaction: never sent.
        assertThat(refused.lane()).isEqualTo(MetricLane.SOLO);
        assertThat(refused.lastError()).contains("refused").contains("exactly one statement");
        assertThat(kit.publisher.of("multi", "plain")).hasSize(4);
        assertThat(kit.publisher.of("multi", "two_statements")).isEmpty();
    }
}
