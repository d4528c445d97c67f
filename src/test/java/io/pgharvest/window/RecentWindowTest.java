package io.pgharvest.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The window's rules, without a server: what it keeps, how counters read, and its bounds. */
@Tag("fast")
class RecentWindowTest {

    private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");
    private static final WindowLimits HOUR = new WindowLimits(3_600_000, 720, 100);

    private final Clock clock = Clock.fixed(T0.plusSeconds(600), ZoneOffset.UTC);

    @Test
    void aCounterReadsAsItsRatePerSecondAndAResetGivesNoPoint() {
        var window = new RecentWindow(HOUR, 1 << 20, clock);
        long[] commits = {1000, 1100, 1400, 50, 150};
        for (int i = 0; i < commits.length; i++) {
            window.record(List.of(dbStats("a", T0.plusSeconds(10L * i), commits[i], 7)));
        }

        Series rate = only(window.read("a", 0, Set.of("db_stats")), "xact_commit");
        assertThat(rate.kind()).isEqualTo(SeriesKind.COUNTER);
        // 100 in 10 s, 300 in 10 s, (reset: none), 100 in 10 s
        assertThat(rate.values()).containsExactly(10.0, 30.0, 10.0);
        assertThat(rate.times()).containsExactly(T0.plusSeconds(10).toEpochMilli(), T0.plusSeconds(20).toEpochMilli(),
                T0.plusSeconds(40).toEpochMilli());
        Series backends = only(window.read("a", 0, Set.of("db_stats")), "numbackends");
        assertThat(backends.kind()).isEqualTo(SeriesKind.GAUGE);
        assertThat(backends.values()).containsExactly(7.0, 7.0, 7.0, 7.0, 7.0);
    }

    @Test
    void aSpanReturnsItsPointsWithTheRateOfTheFirstOneTakenFromThePointBefore() {
        var window = new RecentWindow(HOUR, 1 << 20, clock);
        for (int i = 0; i < 6; i++) {
            window.record(List.of(dbStats("a", T0.plusSeconds(10L * i), 100L * i * i, 1)));
        }
        Series rate = only(window.read("a", T0.plusSeconds(40).toEpochMilli(), Set.of()), "xact_commit");
        // 1600 -> 900 over 10 s before it: 70/s; 2500 - 1600 = 900 over 10 s: 90/s
        assertThat(rate.values()).containsExactly(70.0, 90.0);
    }

    @Test
    void onlyChartedColumnsOfChartedMetricsAreKeptAndRowTagsMakeSeries() {
        var window = new RecentWindow(HOUR, 1 << 20, clock);
        window.record(List.of(
                measurement("a", "settings", T0, row(Map.of("setting_value", 5), Map.of())),
                measurement("a", "connections", T0,
                        row(values("processes", 3, "other_number", 9), Map.of("state", "active", "backend_type", "client backend")),
                        row(values("processes", 2), Map.of("state", "idle", "backend_type", "client backend")))));

        List<Series> series = window.read("a", 0, Set.of());
        assertThat(series).extracting(Series::metric, Series::column, s -> s.tags().get("state"))
                .containsExactly(org.assertj.core.groups.Tuple.tuple("connections", "processes", "active"),
                        org.assertj.core.groups.Tuple.tuple("connections", "processes", "idle"));
        assertThat(window.read("b", 0, Set.of())).isEmpty();
    }

    @Test
    void aSeriesKeepsAtMostItsPointCapAndGrowsOnlyWhileItsOldestPointIsInsideTheSpan() {
        var window = new RecentWindow(new WindowLimits(60_000, 16, 100), 1 << 20, clock);
        for (int i = 0; i < 100; i++) { // every second: 60 s would need 60 points, the cap is 16
            window.record(List.of(measurement("a", "db_size", T0.plusSeconds(i), row(Map.of("size_b", i), Map.of()))));
        }
        Series size = only(window.read("a", 0, Set.of()), "size_b");
        assertThat(size.values()).hasSize(16).startsWith(84.0).endsWith(99.0);

        var sparse = new RecentWindow(new WindowLimits(60_000, 720, 100), 1 << 20, clock);
        for (int i = 0; i < 100; i++) { // every 30 s: a 60 s span needs 3 points, the ring stays at its first size
            sparse.record(List.of(measurement("a", "db_size", T0.plusSeconds(30L * i), row(Map.of("size_b", i), Map.of()))));
        }
        assertThat(sparse.budget().reserved()).isEqualTo(MemoryBudget.BYTES_PER_SERIES
                + (long) SeriesRing.INITIAL_POINTS * MemoryBudget.BYTES_PER_POINT);
    }

    @Test
    void aSourcePastItsSeriesCapHasItsNewSeriesRefusedAndCounted() {
        var window = new RecentWindow(new WindowLimits(3_600_000, 720, 3), 1 << 20, clock);
        var rows = new Measurement.Row[5];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = row(Map.of("processes", i), Map.of("state", "s" + i));
        }
        window.record(List.of(measurement("a", "connections", T0, rows)));

        assertThat(window.read("a", 0, Set.of())).hasSize(3);
        assertThat(window.refusedSeries()).isEqualTo(2);
    }

    @Test
    void theMemoryBoundIsNeverPassedAndSeriesBeyondItAreRefused() {
        long oneSeries = MemoryBudget.BYTES_PER_SERIES + (long) SeriesRing.INITIAL_POINTS * MemoryBudget.BYTES_PER_POINT;
        long limit = 10 * oneSeries + 100;
        var window = new RecentWindow(new WindowLimits(3_600_000, 720, 1000), limit, clock);
        for (int t = 0; t < 50; t++) {
            var rows = new Measurement.Row[20];
            for (int i = 0; i < rows.length; i++) {
                rows[i] = row(Map.of("processes", t), Map.of("state", "s" + i));
            }
            window.record(List.of(measurement("a", "connections", T0.plusSeconds(t), rows)));
            assertThat(window.budget().reserved()).isLessThanOrEqualTo(limit);
        }
        assertThat(window.seriesCount()).isEqualTo(10);
        assertThat(window.refusedSeries()).isPositive();
        // the ten kept could not grow past their first arrays: they keep their newest 8 points
        assertThat(only(window.read("a", 0, Set.of()).subList(0, 1), "processes").values()).hasSize(8);
    }

    @Test
    void aSweepDropsSeriesThatLeftTheSpanAndReleasesTheirMemory() {
        var window = new RecentWindow(new WindowLimits(60_000, 720, 100), 1 << 20, clock); // now = T0 + 600 s
        window.record(List.of(dbStats("old", T0, 1, 1), dbStats("new", T0.plusSeconds(590), 1, 1)));
        long before = window.budget().reserved();

        window.sweep();

        assertThat(window.read("old", 0, Set.of())).isEmpty();
        assertThat(window.read("new", 0, Set.of())).isNotEmpty();
        assertThat(window.budget().reserved()).isEqualTo(before / 2);
    }

    @Test
    void keyNumbersAreTheLatestTransactionRateConnectionsSizeAndLag() {
        var window = new RecentWindow(HOUR, 1 << 20, clock);
        window.record(List.of(dbStats("a", T0, 1000, 4)));
        window.record(List.of(dbStats("a", T0.plusSeconds(10), 1500, 5),
                measurement("a", "db_size", T0.plusSeconds(10), row(Map.of("size_b", 123456), Map.of())),
                measurement("a", "replication", T0.plusSeconds(10),
                        row(Map.of("replay_lag_b", 10), Map.of("application_name", "s1")),
                        row(Map.of("replay_lag_b", 900), Map.of("application_name", "s2")))));

        KeyNumbers numbers = window.keyNumbers().getFirst();
        assertThat(numbers.source()).isEqualTo("a");
        assertThat(numbers.tps()).isEqualTo(50.0 + 1.0); // commits 500/10 s, rollbacks 10/10 s
        assertThat(numbers.connections()).isEqualTo(5.0);
        assertThat(numbers.sizeBytes()).isEqualTo(123456.0);
        assertThat(numbers.lagBytes()).isEqualTo(900.0);
        assertThat(numbers.updated()).isEqualTo(T0.plusSeconds(10));
    }

    @Test
    void recordingAdvancesTheSourcesAndTheFleetsIndex() {
        var window = new RecentWindow(HOUR, 1 << 20, clock);
        long fleet = window.changes().index();
        long source = window.changesOf("a").index();
        window.record(List.of(dbStats("a", T0, 1, 1)));
        assertThat(window.changes().index()).isGreaterThan(fleet);
        assertThat(window.changesOf("a").index()).isGreaterThan(source);
        assertThat(window.changesOf("b").index()).isZero();
    }

    @Test
    void statementsSumTheirDeltasOverTheSpanWithTheirTextAndSamplesFollowTheirQueryId() {
        var window = new RecentWindow(HOUR, 1 << 20, clock);
        Map<String, String> slow = Map.of("queryid", "42", "dbname", "shop", "user", "app", "toplevel", "true");
        for (int i = 0; i < 3; i++) {
            window.record(List.of(measurement("a", "query_stats", T0.plusSeconds(60L * i),
                    row(values("calls", 2, "total_exec_time", 500.0, "rows", 10, "shared_blks_read", 1), slow))));
        }
        window.record(List.of(
                measurement("a", "query_texts", T0.plusSeconds(120), row(values("query", "select pg_sleep($1)"),
                        Map.of("queryid", "42"))),
                measurement("a", "query_samples", T0.plusSeconds(121),
                        row(values("state", "active", "wait_event_type", "Timeout", "wait_event", "PgSleep",
                                "duration_s", 0.2, "blocking_pids", ""), Map.of("pid", "7", "queryid", "42", "dbname", "shop")),
                        row(values("state", "active"), Map.of("pid", "8", "queryid", "43", "dbname", "shop")))));

        SourceWindow source = window.source("a").orElseThrow();
        Statement all = source.statements(0).getFirst();
        assertThat(all).isEqualTo(new Statement("42", "shop", "app", "true", 6, 1500, 250.0, 30, 3, "select pg_sleep($1)", null, 1, null));
        assertThat(source.statements(T0.plusSeconds(60).toEpochMilli()).getFirst().calls()).isEqualTo(4);
        List<Sample> samples = source.samples(0, "42", 10);
        assertThat(samples).extracting(Sample::pid, Sample::waitEventType, Sample::waitEvent)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("7", "Timeout", "PgSleep"));
        assertThat(source.samples(0, null, 10)).hasSize(2);
    }

    @Test
    void samplesKeepTheNewestUpToTheirCapacityAndReleaseTheirMemory() {
        var window = new RecentWindow(new WindowLimits(3_600_000, 720, 100, 3, 10), 1 << 20, clock);
        for (int i = 0; i < 5; i++) {
            window.record(List.of(measurement("a", "query_samples", T0.plusSeconds(i),
                    row(values("state", "active"), Map.of("pid", "p" + i, "queryid", "1")))));
        }
        long threeSamples = window.budget().reserved();
        assertThat(window.source("a").orElseThrow().samples(0, null, 10)).extracting(Sample::pid)
                .containsExactly("p4", "p3", "p2");

        window.sweep(); // now = T0 + 600 s, the span is an hour: nothing leaves
        assertThat(window.budget().reserved()).isEqualTo(threeSamples);
        var shortSpan = new RecentWindow(new WindowLimits(60_000, 720, 100, 3, 10), 1 << 20, clock);
        shortSpan.record(List.of(measurement("a", "query_samples", T0, row(values("state", "active"), Map.of("pid", "1")))));
        shortSpan.sweep();
        assertThat(shortSpan.budget().reserved()).isZero();
        assertThat(shortSpan.source("a")).isEmpty();
    }

    static Measurement dbStats(String source, Instant time, long commits, int backends) {
        return measurement(source, "db_stats", time,
                row(values("xact_commit", commits, "xact_rollback", commits / 50, "numbackends", backends), Map.of()));
    }

    static Measurement measurement(String source, String metric, Instant time, Measurement.Row... rows) {
        return new Measurement(source, metric, time, List.of(rows), Map.of());
    }

    static Measurement.Row row(Map<String, Object> values, Map<String, String> tags) {
        return new Measurement.Row(values, tags);
    }

    static Map<String, Object> values(Object... pairs) {
        var values = new LinkedHashMap<String, Object>();
        for (int i = 0; i < pairs.length; i += 2) {
            values.put((String) pairs[i], pairs[i + 1]);
        }
        return values;
    }

    static Series only(List<Series> series, String column) {
        return series.stream().filter(s -> s.column().equals(column)).reduce((a, b) -> {
            throw new AssertionError("two series of " + column);
        }).orElseThrow(() -> new AssertionError("no series of " + column + " in " + series));
    }
}
