package io.pgharvest.reaper;

import io.pgharvest.reaper.tick.CollectionPlan;
import static io.pgharvest.reaper.ReaperTestKit.metric;
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
    /** A healthy instance-level metric among the suspects: delivered and shared like the others. */
    private static final MetricDefinition INSTANCE_LEVEL = new MetricDefinition("m08", "instance-level",
            Map.of(10, "select 8 as v"), List.of("*"), true, NodeStatus.ANY, null, null, null);

    @Test
    void fourCulpritsAmongTwentyAreFoundWithinTheBoundAndTheHealthyAreDeliveredOnEveryTickAfter()
            throws Exception {
        var run = new Run("culprits_two", 2, CULPRITS);

        run.tick(ticksToIdentify(METRICS, CULPRITS.size(), 2) + 4);

        run.assertIdentifiedWithin(ticksToIdentify(METRICS, CULPRITS.size(), 2), CULPRITS.keySet(),
                healthy(CULPRITS.keySet()));
        run.assertErrors(Map.of("m17", "57014", "m05", "42P01"));
        assertThat(run.lastError("m17")).contains("timed out");
    }

    /**
     * The commonest culprits in a fleet (an extension, view, function or column this server lacks)
     * fail in parse analysis, where the server names the object and its position in the failing
     * statement: they are set aside at once, without a trial of their own, and the rest is sent
     * again in the same tick while the allowance lasts. So from the second tick on every healthy
     * metric is delivered, where the search alone would take many ticks.
     */
    @Test
    void culpritsTheServerPointsAtAreSetAsideInTheTickThatFailed() throws Exception {
        Map<String, MetricDefinition> pointed = Map.of(
                "m05", metric("m05", "select * from no_such_table_pointed"),
                "m11", metric("m11", "select no_such_function_pointed() as v"),
                "m17", metric("m17", "select no_such_column_pointed from pg_database limit 1"));
        var run = new Run("culprits_pointed", 2, pointed);

        run.tick(4);

        run.assertIdentifiedWithin(2, pointed.keySet(), healthy(pointed.keySet()));
        run.assertErrors(Map.of("m05", "42P01", "m11", "42883", "m17", "42703"));
        // the failed pipeline and its two re-sends, each failure naming the next culprit
        assertThat(run.roundTrips.getFirst()).isEqualTo(3.0);
    }

    /**
     * Culprits the server pointed at on one database of an instance are tried alone first on its
     * other databases: their first tick sends the healthy pipeline once and delivers it, instead of
     * re-sending it once per culprit (with three culprits and two extra round trips, a first tick
     * delivered nothing: 300 sources of one cluster waited a whole interval for their first rows).
     */
    @Test
    void aSiblingDatabaseTriesTheCulpritsPointedAtOnTheFirstAloneAndDeliversOnItsFirstTick() throws Exception {
        Map<String, MetricDefinition> pointed = Map.of(
                "m05", metric("m05", "select * from no_such_table_sibling"),
                "m11", metric("m11", "select no_such_function_sibling() as v"),
                "m17", metric("m17", "select no_such_column_sibling from pg_database limit 1"));
        var first = new Run("culprits_sibling_a", 2, pointed);
        first.tick(1);
        assertThat(first.roundTrips.getFirst()).as("first source: the pipeline and two re-sends").isEqualTo(3.0);
        // What came before each culprit is delivered; after the third, the allowance is spent.
        Set<String> beforeTheLast = healthy(pointed.keySet()).stream().filter(m -> m.compareTo("m17") < 0)
                .collect(Collectors.toSet());
        assertThat(first.delivered.getFirst()).as("delivered before each culprit").containsAll(beforeTheLast)
                .as("nothing left in the allowance for the rest after the last culprit")
                .doesNotContainAnyElementsOf(healthy(Set.of()).stream().filter(m -> m.compareTo("m17") > 0).toList());

        var sibling = new Run("culprits_sibling_b", 2, pointed, first.kit);
        sibling.tick(2);

        Set<String> healthy = healthy(pointed.keySet());
        // one pipeline that succeeds, then two of the three culprits alone (the allowance)
        assertThat(sibling.roundTrips.getFirst()).isEqualTo(3.0);
        // The instance-level m08 the first source fetched (it delivered before its culprits now) is
        // the sibling's too, stamped with the time it was fetched; the rest carries the sibling's tick.
        assertThat(sibling.delivered.getFirst()).containsAll(healthy.stream().filter(m -> !m.equals("m08")).toList());
        assertThat(first.kit.publisher.of("culprits_sibling_b", "m08")).isNotEmpty();
        assertThat(sibling.delivered.get(1)).containsAll(healthy);
        sibling.assertErrors(Map.of("m05", "42P01", "m11", "42883", "m17", "42703"));
        assertThat(sibling.last.metrics()).filteredOn(m -> pointed.containsKey(m.name()))
                .extracting(MetricRuntimeStatus::lane).containsOnly(MetricLane.SOLO);
    }

    @Test
    void withOneExtraRoundTripPerTickTheCulpritsAreStillFound() throws Exception {
        var run = new Run("culprits_one", 1, CULPRITS);

        run.tick(ticksToIdentify(METRICS, CULPRITS.size(), 1) + 4);

        run.assertIdentifiedWithin(ticksToIdentify(METRICS, CULPRITS.size(), 1), CULPRITS.keySet(),
                healthy(CULPRITS.keySet()));
    }

    @Test
    void theSearchGoesOnAcrossALostSessionAndAConfigurationChange() throws Exception {
        var run = new Run("culprits_disturbed", 2, CULPRITS);
        int bound = ticksToIdentify(METRICS, CULPRITS.size(), 2);
        run.tick(3);

        // Between ticks the backend goes (like idle_session_timeout): the next tick reconnects
        // at once and runs; the search goes on where it was.
        pg.execute("postgres", "select pg_terminate_backend(pid) from pg_stat_activity"
                + " where application_name = 'pgharvest' and datname = 'culprits_disturbed_db'");
        run.tick(2);
        // Mid-search, a culprit is dropped from the selection and a healthy metric added.
        var selection = new LinkedHashMap<>(run.selection);
        selection.remove("m11");
        selection.put("m25", 10);
        run.reconfigure(selection, List.of(metric("m25", "select 25 as v")));
        run.tick(bound - 5 + 4);

        var culprits = new java.util.TreeSet<>(CULPRITS.keySet());
        culprits.remove("m11");
        var healthy = new java.util.TreeSet<>(healthy(CULPRITS.keySet()));
        healthy.add("m25");
        // The tick that finds the backend gone also counts its attempt on the dead session.
        run.attemptsOnADeadSession = 1;
        run.assertIdentifiedWithin(bound, culprits, healthy);
        assertThat(run.last.metrics()).extracting(MetricRuntimeStatus::name).doesNotContain("m11");
    }

    /**
     * The bound of the search. A group known to fail costs at most two trials (its first half,
     * then its rest whole when the half failed). In the halving of {@code n} metrics a level holds
     * at most {@code k} failing groups (one culprit each at least) and at most 2^level, and
     * groups of two or more exist above level ceil(log2 n). The search starts in the first tick
     * (whose healthy pipeline fails); one tick more for a timeout before anything answered (the
     * search then stops for the tick and the reaper stretches the schedule by a tick).
     */
    static int ticksToIdentify(int n, int k, int extraRoundTrips) {
        int depth = 32 - Integer.numberOfLeadingZeros(n - 1); // ceil(log2 n)
        int failingGroups = 0;
        for (int level = 0; level < depth; level++) {
            failingGroups += Math.min(1 << level, k);
        }
        int trials = 2 * failingGroups;
        return (trials + extraRoundTrips - 1) / extraRoundTrips + 2;
    }

    private static Set<String> healthy(Set<String> culprits) {
        var healthy = new java.util.TreeSet<String>();
        for (int i = 1; i <= METRICS; i++) {
            healthy.add("m%02d".formatted(i));
        }
        healthy.removeAll(culprits);
        return healthy;
    }

    /** A reaper on its own database, driven tick by tick; what each tick delivered and cost. */
    private static final class Run {
        private final String name;
        private final int extraRoundTrips;
        private final ReaperTestKit kit;
        private final ManualTickTimer timer = new ManualTickTimer(Instant.parse("2026-03-01T10:00:00.250Z"));
        private final List<MetricDefinition> metrics = new ArrayList<>();
        private final Map<String, Integer> selection = new LinkedHashMap<>();
        private final SourceReaper reaper;
        private final List<Double> roundTrips = new ArrayList<>();
        private final List<Set<String>> delivered = new ArrayList<>();
        private int sleeps = 1;
        private SourceRuntimeStatus last;
        /** Ticks that tried a dead session first (its round trip counted, but it reached no server). */
        private int attemptsOnADeadSession;

        Run(String name, int extraRoundTrips, Map<String, MetricDefinition> culprits) {
            this(name, extraRoundTrips, culprits, new ReaperTestKit(extraRoundTrips));
        }

        /** A reaper sharing {@code kit} (its instances, meters and publisher) with another run's. */
        Run(String name, int extraRoundTrips, Map<String, MetricDefinition> culprits, ReaperTestKit kit) {
            this.name = name;
            this.extraRoundTrips = extraRoundTrips;
            pg.createDatabase(name + "_db");
            for (int i = 1; i <= METRICS; i++) {
                String metric = "m%02d".formatted(i);
                metrics.add(metric.equals(INSTANCE_LEVEL.name()) ? INSTANCE_LEVEL
                        : culprits.getOrDefault(metric, metric(metric, "select " + i + " as v")));
                selection.put(metric, 10);
            }
            this.kit = kit;
            reaper = new SourceReaper(config(), kit.context, timer);
            reaper.start();
        }

        private CollectionPlan config() {
            return ReaperTestKit.config(source(name, pg.connStr(name + "_db"), selection), metrics);
        }

        void tick(int ticks) throws InterruptedException {
            for (int i = 0; i < ticks; i++, sleeps++) {
                double before = BoundedRoundTripsTest.roundTrips(kit, name);
                timer.advanceTo(timer.awaitSleepRequests(sleeps));
                timer.awaitSleepRequests(sleeps + 1);
                SourceRuntimeStatus status = reaper.status();
                roundTrips.add(BoundedRoundTripsTest.roundTrips(kit, name) - before);
                delivered.add(kit.publisher.all().stream()
                        .filter(m -> m.source().equals(name) && m.time().equals(status.lastTickStart()))
                        .map(m -> m.metric()).collect(Collectors.toSet()));
                last = status;
            }
        }

        /** Hands the reaper a new selection; it re-plans at once (one more sleep, no tick). */
        void reconfigure(Map<String, Integer> selection, List<MetricDefinition> added) throws InterruptedException {
            this.selection.clear();
            this.selection.putAll(selection);
            metrics.addAll(added);
            reaper.reconfigure(config());
            sleeps++;
            timer.awaitSleepRequests(sleeps);
        }

        void assertIdentifiedWithin(int bound, Set<String> culprits, Set<String> healthy) throws InterruptedException {
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(10))).isTrue();
            assertThat(roundTrips).filteredOn(n -> n > 1.0 + extraRoundTrips)
                    .hasSizeLessThanOrEqualTo(attemptsOnADeadSession)
                    .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(2.0 + extraRoundTrips));
            // From the bound on, every healthy metric is delivered on every tick.
            for (int tick = bound; tick <= delivered.size(); tick++) {
                assertThat(delivered.get(tick - 1)).as("tick %d of %d", tick, delivered.size())
                        .containsAll(healthy).doesNotContainAnyElementsOf(culprits);
            }
            Map<String, MetricRuntimeStatus> byName = last.metrics().stream()
                    .collect(Collectors.toMap(MetricRuntimeStatus::name, m -> m));
            culprits.forEach(c -> assertThat(byName.get(c).lane()).as(c).isEqualTo(MetricLane.SOLO));
            healthy.forEach(h -> assertThat(byName.get(h).lane()).as(h).isEqualTo(MetricLane.PIPELINE));
            System.out.printf("%s (%d extra round trips): every healthy metric delivered on every tick from tick %d"
                    + " (bound %d); healthy delivered per tick %s; round trips per tick %s%n", name, extraRoundTrips,
                    firstCompleteTick(healthy), bound,
                    delivered.stream().map(d -> d.stream().filter(healthy::contains).count()).toList(), roundTrips);
        }

        /** Each metric's last error names its SQLState. */
        void assertErrors(Map<String, String> sqlStates) {
            sqlStates.forEach((metric, state) -> assertThat(lastError(metric)).as(metric).contains(state));
        }

        String lastError(String metric) {
            return last.metrics().stream().filter(m -> m.name().equals(metric)).findFirst().orElseThrow().lastError();
        }

        /** The first tick from which every healthy metric is delivered on every tick. */
        private int firstCompleteTick(Set<String> healthy) {
            int first = delivered.size() + 1;
            for (int tick = delivered.size(); tick >= 1 && delivered.get(tick - 1).containsAll(healthy); tick--) {
                first = tick;
            }
            return first;
        }
    }
}
