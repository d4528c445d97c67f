package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.metricWithTimeout;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Several permanently failing metrics spread through a source's list never starve the healthy
 * ones: the search for the culprits goes on across ticks, within the allowance of extra round
 * trips, and ends with every culprit in the solo lane and every healthy metric delivered on
 * every tick. (A split repeated identically every tick put a culprit in every group, and the
 * healthy metrics were never delivered.)
 */
class SeveralCulpritsTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final int METRICS = 24;
    /** Spread through the list (due metrics run in name order): three errors and one timeout. */
    private static final Map<String, MetricDefinition> CULPRITS = Map.of(
            "m05", metric("m05", "select * from no_such_table_culprits"),
            "m11", metric("m11", "select no_such_function_culprits() as v"),
            "m17", metricWithTimeout("m17", "select pg_sleep(5) as slept", 1),
            "m23", metric("m23", "select 1 / (random() * 0)::int as v"));

    @Test
    void fourCulpritsAmongTwentyAreFoundWithinTheBoundAndTheHealthyAreDeliveredOnEveryTickAfter()
            throws Exception {
        Observed run = observe("culprits_two", 2);

        run.assertIdentifiedWithin(ticksToIdentify(METRICS, CULPRITS.size(), 2));
    }

    @Test
    void withOneExtraRoundTripPerTickTheCulpritsAreStillFound() throws Exception {
        Observed run = observe("culprits_one", 1);

        run.assertIdentifiedWithin(ticksToIdentify(METRICS, CULPRITS.size(), 1));
    }

    /**
     * The bound of the search. Each failing group of two or more metrics is halved, both halves
     * tried: two round trips. In the halving tree of {@code n} metrics, a level holds at most
     * {@code k} failing groups (one culprit each at least) and at most 2^level, and groups of two
     * or more exist above level ceil(log2 n). The first tick is the healthy pipeline that fails.
     * One more tick for a timeout with nothing answered yet (the search then stops for the tick).
     */
    static int ticksToIdentify(int n, int k, int extraRoundTrips) {
        int depth = 32 - Integer.numberOfLeadingZeros(n - 1); // ceil(log2 n)
        int failingGroups = 0;
        for (int level = 0; level < depth; level++) {
            failingGroups += Math.min(1 << level, k);
        }
        int trials = 2 * failingGroups;
        return 1 + (trials + extraRoundTrips - 1) / extraRoundTrips + 1;
    }

    private Observed observe(String name, int extraRoundTrips) throws Exception {
        pg.createDatabase(name + "_db");
        var metrics = new ArrayList<MetricDefinition>();
        var selection = new LinkedHashMap<String, Integer>();
        for (int i = 1; i <= METRICS; i++) {
            String metric = "m%02d".formatted(i);
            metrics.add(CULPRITS.getOrDefault(metric, metric(metric, "select " + i + " as v")));
            selection.put(metric, 10);
        }
        var kit = new ReaperTestKit(extraRoundTrips);
        var timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.250Z"));
        var reaper = new SourceReaper(ReaperTestKit.config(source(name, pg.connStr(name + "_db"), selection), metrics),
                kit.context, timer);
        reaper.start();
        int ticks = ticksToIdentify(METRICS, CULPRITS.size(), extraRoundTrips) + 4;
        var observed = new Observed(extraRoundTrips);
        for (int sleeps = 1; sleeps <= ticks; sleeps++) {
            double before = BoundedRoundTripsTest.roundTrips(kit, name);
            timer.advanceTo(timer.awaitSleepRequests(sleeps));
            timer.awaitSleepRequests(sleeps + 1);
            SourceRuntimeStatus status = reaper.status();
            Set<String> delivered = kit.publisher.all().stream()
                    .filter(m -> m.source().equals(name) && m.time().equals(status.lastTickStart()))
                    .map(m -> m.metric()).collect(Collectors.toSet());
            observed.tick(BoundedRoundTripsTest.roundTrips(kit, name) - before, delivered, status);
        }
        reaper.stop();
        assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
        return observed;
    }

    /** What each tick of a run delivered and cost. */
    private static final class Observed {
        private final int extraRoundTrips;
        private final List<Double> roundTrips = new ArrayList<>();
        private final List<Set<String>> delivered = new ArrayList<>();
        private SourceRuntimeStatus last;

        Observed(int extraRoundTrips) {
            this.extraRoundTrips = extraRoundTrips;
        }

        void tick(double roundTrips, Set<String> delivered, SourceRuntimeStatus status) {
            this.roundTrips.add(roundTrips);
            this.delivered.add(delivered);
            this.last = status;
        }

        void assertIdentifiedWithin(int bound) {
            assertThat(roundTrips).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(1.0 + extraRoundTrips));
            Set<String> healthy = healthyMetrics();
            // From the bound on, every healthy metric is delivered on every tick.
            for (int tick = bound; tick <= delivered.size(); tick++) {
                assertThat(delivered.get(tick - 1)).as("tick %d of %d", tick, delivered.size())
                        .containsAll(healthy).doesNotContainAnyElementsOf(CULPRITS.keySet());
            }
            Map<String, MetricRuntimeStatus> byName = last.metrics().stream()
                    .collect(Collectors.toMap(MetricRuntimeStatus::name, m -> m));
            CULPRITS.keySet().forEach(c -> assertThat(byName.get(c).lane()).as(c).isEqualTo(MetricLane.SOLO));
            healthy.forEach(h -> assertThat(byName.get(h).lane()).as(h).isEqualTo(MetricLane.PIPELINE));
            assertThat(byName.get("m17").lastError()).contains("timed out").contains("57014");
            assertThat(byName.get("m05").lastError()).contains("42P01");
            System.out.printf("isolation with %d extra round trips: all healthy delivered from tick %d (bound %d),"
                    + " round trips per tick %s%n", extraRoundTrips, firstCompleteTick(healthy), bound, roundTrips);
        }

        /** The first tick from which every healthy metric is delivered on every tick. */
        private int firstCompleteTick(Set<String> healthy) {
            int first = delivered.size() + 1;
            for (int tick = delivered.size(); tick >= 1 && delivered.get(tick - 1).containsAll(healthy); tick--) {
                first = tick;
            }
            return first;
        }

        private static Set<String> healthyMetrics() {
            var healthy = new java.util.TreeSet<String>();
            for (int i = 1; i <= METRICS; i++) {
                healthy.add("m%02d".formatted(i));
            }
            healthy.removeAll(CULPRITS.keySet());
            return healthy;
        }
    }
}
