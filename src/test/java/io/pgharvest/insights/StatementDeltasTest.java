package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The rules of query_stats' rows on snapshots built by hand: no server needed. */
@Tag("fast")
class StatementDeltasTest {

    private static final List<StatementCounter> COUNTERS = List.of(StatementCounter.CALLS,
            StatementCounter.TOTAL_EXEC_TIME, StatementCounter.TOTAL_PLAN_TIME, StatementCounter.ROWS);
    private static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");
    private static final Instant T1 = T0.plusSeconds(60);

    @Test
    void theFirstReadIsOnlyTheBaseline() {
        assertThat(StatementDeltas.rows(null, snapshot(T0, 0, 1L, Map.of(key(1), entry(5, 10, 0, 5))), 50, "db"))
                .isEmpty();
    }

    @Test
    void aChangeIsTheDifferenceAndAnUnchangedStatementGivesNoRow() {
        var before = snapshot(T0, 0, 1L, Map.of(key(1), entry(5, 10, 1, 5), key(2), entry(3, 3, 0, 3)));
        var after = snapshot(T1, 0, 1L, Map.of(key(1), entry(8, 16, 1.5, 9), key(2), entry(3, 3, 0, 3)));
        List<Measurement.Row> rows = StatementDeltas.rows(before, after, 50, "db");
        assertThat(rows).singleElement().satisfies(row -> {
            assertThat(row.tags()).containsEntry("queryid", "1").containsEntry("dbname", "db")
                    .containsEntry("user", "alice").containsEntry("toplevel", "true");
            assertThat(row.values()).containsEntry("calls", 3L).containsEntry("total_exec_time", 6.0)
                    .containsEntry("total_plan_time", 0.5).containsEntry("rows", 4L)
                    .containsEntry("mean_exec_time", 2.0).containsEntry("approximate", false)
                    .containsEntry("interval_seconds", 60.0);
        });
    }

    @Test
    void aNewStatementCountsFromZero() {
        var before = snapshot(T0, 0, 1L, Map.of(key(1), entry(5, 10, 0, 5)));
        var after = snapshot(T1, 0, 1L, Map.of(key(1), entry(5, 10, 0, 5), key(7), entry(4, 2, 0, 4)));
        assertThat(StatementDeltas.rows(before, after, 50, "db")).singleElement()
                .satisfies(row -> assertThat(row.values()).containsEntry("calls", 4L));
    }

    @Test
    void aFullResetMakesEveryChangeTheCurrentValueEvenWhenItIsHigherThanBefore() {
        var before = snapshot(T0, 4, 1L, Map.of(key(1), entry(3, 3, 0, 3)));
        var after = snapshot(T1, 0, 2L, Map.of(key(1), entry(7, 7, 0, 7)));
        assertThat(StatementDeltas.rows(before, after, 50, "db")).singleElement()
                .satisfies(row -> assertThat(row.values()).containsEntry("calls", 7L));
    }

    @Test
    void aCounterGoingDownOrALaterStatsSinceRestartsTheEntry() {
        var before = snapshot(T0, 0, 1L, Map.of(key(1), entry(10, 10, 0, 10), key(2), since(entry(2, 2, 0, 2), 100)));
        var after = snapshot(T1, 0, 1L, Map.of(key(1), entry(4, 12, 0, 12), key(2), since(entry(5, 5, 0, 5), 200)));
        Map<String, Object> calls = new HashMap<>();
        StatementDeltas.rows(before, after, 50, "db").forEach(r -> calls.put(r.tags().get("queryid"), r.values().get("calls")));
        assertThat(calls).containsEntry("1", 4L).containsEntry("2", 5L);
    }

    @Test
    void evictionsMarkEveryRowOfTheReadApproximate() {
        var before = snapshot(T0, 3, 1L, Map.of(key(1), entry(1, 1, 0, 1)));
        var after = snapshot(T1, 5, 1L, Map.of(key(1), entry(2, 2, 0, 2), key(2), entry(1, 1, 0, 1)));
        assertThat(StatementDeltas.rows(before, after, 1, "db")).hasSize(2)
                .allSatisfy(row -> assertThat(row.values()).containsEntry("approximate", true));
    }

    @Test
    void statementsOutsideTheTopAreOneOtherRowAndTheRowsAddUpToTheTotal() {
        var beforeEntries = new HashMap<StatementKey, double[]>();
        var afterEntries = new HashMap<StatementKey, double[]>();
        double totalCalls = 0;
        double totalTime = 0;
        for (int i = 1; i <= 20; i++) {
            beforeEntries.put(key(i), entry(i, i, 0, i));
            afterEntries.put(key(i), entry(i + i, i + i * 10, 0.5, i));
            totalCalls += i;
            totalTime += i * 10 + 0.5;
        }
        List<Measurement.Row> rows = StatementDeltas.rows(snapshot(T0, 0, 1L, beforeEntries),
                snapshot(T1, 0, 1L, afterEntries), 5, "db");

        assertThat(rows).hasSize(6);
        assertThat(rows.subList(0, 5)).extracting(r -> r.tags().get("queryid")).containsExactly("20", "19", "18", "17", "16");
        assertThat(rows.getLast().tags()).isEqualTo(Map.of("queryid", "other", "dbname", "db"));
        assertThat(rows.getLast().values()).containsEntry("calls", (long) (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11
                + 12 + 13 + 14 + 15));
        assertThat(rows.stream().mapToLong(r -> (Long) r.values().get("calls")).sum()).isEqualTo((long) totalCalls);
        assertThat(rows.stream().mapToDouble(r -> (Double) r.values().get("total_exec_time")).sum()
                + rows.stream().mapToDouble(r -> (Double) r.values().get("total_plan_time")).sum())
                .isCloseTo(totalTime, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void noOtherRowWhileEveryChangedStatementFitsInTheTop() {
        var before = snapshot(T0, 0, 1L, Map.of(key(1), entry(1, 1, 0, 1), key(2), entry(1, 1, 0, 1)));
        var after = snapshot(T1, 0, 1L, Map.of(key(1), entry(2, 2, 0, 2), key(2), entry(2, 2, 0, 2),
                key(3), entry(0, 0, 0, 0)));
        assertThat(StatementDeltas.rows(before, after, 2, "db")).extracting(r -> r.tags().get("queryid"))
                .containsExactlyInAnyOrder("1", "2");
    }

    private static StatementKey key(long queryId) {
        return new StatementKey(queryId, 10, true);
    }

    private static double[] entry(double calls, double execTime, double planTime, double rows) {
        return new double[] {calls, execTime, planTime, rows, Double.NaN};
    }

    private static double[] since(double[] entry, double statsSince) {
        entry[COUNTERS.size()] = statsSince;
        return entry;
    }

    private static StatementSnapshot snapshot(Instant at, long dealloc, Long statsReset, Map<StatementKey, double[]> entries) {
        return new StatementSnapshot(at, dealloc, statsReset, COUNTERS, new HashMap<>(entries), Map.of(10L, "alice"));
    }
}
