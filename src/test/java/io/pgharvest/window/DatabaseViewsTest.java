package io.pgharvest.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import io.pgharvest.model.FieldProblem;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** How the database views read the latest rows of their metrics: lock trees, vacuum reasons, unused indexes, states. */
@Tag("fast")
class DatabaseViewsTest {

    private static Measurement.Row row(Map<String, String> tags, Object... values) {
        var map = new HashMap<String, Object>();
        for (int i = 0; i < values.length; i += 2) {
            map.put((String) values[i], values[i + 1]);
        }
        return new Measurement.Row(map, tags);
    }

    /** The rows as the window keeps them for the views. */
    private static ViewRows kept(String metric, Measurement.Row... rows) {
        return ViewRows.compact(LatestReads.KEPT.get(metric), List.of(rows));
    }

    private static Measurement.Row sample(String pid, String state, String app, String blockingPids, double tx) {
        return row(Map.of("pid", pid, "queryid", "", "dbname", "db"), "state", state, "application_name", app,
                "user_name", "u", "blocking_pids", blockingPids, "duration_s", 3.0, "transaction_duration_s", tx);
    }

    @Test
    void aChainOfWaitsIsOneTreeUnderItsRootHolderWithTheWaitersNestedAndTheirTexts() {
        var sessions = SessionsView.sessions(kept(SessionsView.SAMPLES,
                sample("10", "idle in transaction", "holder-app", "", 40), sample("11", "active", "waiter-1", "10", 5),
                sample("12", "active", "waiter-2", "11", 2), sample("13", "active", "bystander", "", 1)), queryid -> null);
        var blocking = kept(SessionsView.BLOCKING, row(Map.of("blocked_pid", "11", "root_blocker_pid", "10"), "wait_s",
                4.5, "blocked_query", "update t set v = $1", "blocker_query", "lock table t", "blocker_state",
                "idle in transaction"));

        var tree = SessionsView.lockTree(sessions, blocking);

        assertThat(tree).hasSize(1);
        var root = tree.getFirst();
        assertThat(root.pid()).isEqualTo("10");
        assertThat(root.application()).isEqualTo("holder-app");
        assertThat(root.statement()).isEqualTo("lock table t");
        assertThat(root.waitSeconds()).isNull();
        assertThat(root.transactionSeconds()).isEqualTo(40.0);
        var waiter = root.waiters().getFirst();
        assertThat(waiter.pid()).isEqualTo("11");
        assertThat(waiter.waitSeconds()).isEqualTo(4.5);
        assertThat(waiter.statement()).isEqualTo("update t set v = $1");
        assertThat(waiter.waiters()).extracting(SessionsView.LockNode::pid).containsExactly("12");
    }

    @Test
    void aDeadlockCycleEndsTheTreeInsteadOfLoopingAndNoWaitIsNoTree() {
        var cycle = SessionsView.sessions(kept(SessionsView.SAMPLES, sample("1", "active", "a", "2", 1),
                sample("2", "active", "b", "1", 1)), q -> null);
        assertThat(SessionsView.lockTree(cycle, ViewRows.EMPTY)).isEmpty(); // both wait: neither is a root
        var calm = SessionsView.sessions(kept(SessionsView.SAMPLES, sample("1", "active", "a", "", 1)), q -> null);
        assertThat(SessionsView.lockTree(calm, ViewRows.EMPTY)).isEmpty();
    }

    @Test
    void aTablePastItsThresholdsIsVacuumDueWithEachReasonInWords() {
        var tags = Map.of("schema", "public", "table_name", "t");
        var stats = row(tags, "table_size_b", 8192L, "n_live_tup", 2000L, "n_dead_tup", 18000L, "tx_freeze_age", 500L);
        var maintenance = row(tags, "n_dead_tup", 18000L, "dead_pct", 90.0, "vacuum_threshold", 450L, "vacuum_due", 1,
                "insert_vacuum_due", 0, "analyze_due", 0, "autovacuum_enabled", 0, "freeze_age", 500L,
                "freeze_max_age", 200_000_000L);

        var table = TablesView.tables(kept(TablesView.STATS, stats), kept(TablesView.MAINTENANCE, maintenance)).getFirst();

        assertThat(table.vacuumDue()).isTrue();
        assertThat(table.deadPercent()).isEqualTo(90.0);
        assertThat(table.freezeMaxAge()).isEqualTo(200_000_000.0);
        assertThat(table.reasons()).containsExactly("dead tuples 18,000 over the threshold 450",
                "autovacuum is off for this table");
        // without autovacuum's thresholds read, whether vacuum is due is not guessed
        assertThat(TablesView.tables(kept(TablesView.STATS, stats), ViewRows.EMPTY).getFirst().vacuumDue()).isNull();
    }

    @Test
    void anIndexWithoutScansIsUnusedUnlessItBacksUniquenessAndSaysSinceWhen() {
        var plain = row(Map.of("schema", "public", "table_name", "t", "index_name", "i"), "idx_scan", 0L,
                "is_valid", 1, "is_unique", 0, "is_primary", 0, "stats_reset_age_s", 3600L);
        var unique = row(Map.of("schema", "public", "table_name", "t", "index_name", "u"), "idx_scan", 0L,
                "is_valid", 1, "is_unique", 1, "is_primary", 0);

        var indexes = IndexesView.indexes(kept(IndexesView.STATS, plain, unique), ViewRows.EMPTY, ViewRows.EMPTY,
                ViewRows.EMPTY);

        assertThat(indexes.get(0).unused()).isTrue();
        assertThat(indexes.get(0).findings()).containsExactly("never scanned since the statistics were reset 3600 s ago");
        assertThat(indexes.get(1).unused()).isFalse();
    }

    @Test
    void aPageIsSortedByAFieldWithNullsLastInEitherOrderAndEveryBadParameterIsNamed() {
        var stats = kept(TablesView.STATS, row(Map.of("schema", "public", "table_name", "a"), "n_dead_tup", 5L),
                row(Map.of("schema", "public", "table_name", "b")), row(Map.of("schema", "public", "table_name", "c"),
                        "n_dead_tup", 9L), row(Map.of("schema", "public", "table_name", "d"), "n_dead_tup", 5L));
        var tables = TablesView.tables(stats, ViewRows.EMPTY);
        var problems = new ArrayList<FieldProblem>();

        var desc = ViewPage.parse(new ViewPage.Parameters("deadTuples", null, null, null), TablesView.Table.class, problems);
        var asc = ViewPage.parse(new ViewPage.Parameters("deadTuples", "asc", "2", "1"), TablesView.Table.class, problems);

        assertThat(problems).isEmpty();
        assertThat(desc.of(tables, TablesView.Table.class)).extracting(TablesView.Table::name)
                .containsExactly("c", "a", "d", "b"); // equal values keep the view's order, null last
        assertThat(asc.of(tables, TablesView.Table.class)).extracting(TablesView.Table::name).containsExactly("d", "c");
        assertThat(ViewPage.ALL.of(tables, TablesView.Table.class)).isEqualTo(tables);
        assertThat(ViewPage.parse(new ViewPage.Parameters(null, null, "10", "7"), TablesView.Table.class, problems)
                .of(tables, TablesView.Table.class)).isEmpty();

        ViewPage.parse(new ViewPage.Parameters("reasons", "up", "0", "-1"), TablesView.Table.class, problems);
        assertThat(problems).extracting(FieldProblem::field)
                .containsExactly("sort", "order", "limit", "offset");
        assertThat(problems.getFirst().message()).contains("deadTuples").doesNotContain("reasons");
    }

    @Test
    void aMetricIsNotCollectedWaitingCollectedOrStaleAndAnEmptyReadIsCollected() {
        var budget = new MemoryBudget(1 << 20);
        var reads = new LatestReads(budget);
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        reads.record(new Measurement("s", "replication", at, List.of(), Map.of()));
        var config = new io.pgharvest.model.ConfigSnapshot(1, Map.of(), Map.of(), Map.of(), Map.of());

        var states = new ReadStates(config, "s", reads.find("s"), at.plusSeconds(1));

        assertThat(states.of("replication").state()).isEqualTo(ReadState.COLLECTED);
        assertThat(states.of("replication").rows()).isZero();
        assertThat(states.of("replication").stale()).isTrue(); // read, but no longer selected
        assertThat(states.of("xid_wraparound").state()).isEqualTo(ReadState.NOT_COLLECTED);
        assertThat(reads.find("s").map(r -> r.changes().index())).isEqualTo(Optional.of(1L));
    }

    @Test
    void aReadWhoseRowsTheWindowsMemoryBoundRefusedIsCollectedWithItsRowCountAndSaysTheyWereNotKept() {
        var reads = new LatestReads(new MemoryBudget(1024));
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        var rows = new ArrayList<Measurement.Row>();
        for (int i = 0; i < 1000; i++) {
            rows.add(row(Map.of("schema", "public", "table_name", "t" + i), "n_dead_tup", i));
        }
        reads.record(new Measurement("s", TablesView.STATS, at, rows, Map.of()));
        reads.record(new Measurement("s", "replication", at, List.of(), Map.of()));
        var config = new io.pgharvest.model.ConfigSnapshot(1, Map.of(), Map.of(), Map.of(), Map.of());

        var states = new ReadStates(config, "s", reads.find("s"), at.plusSeconds(1));

        var tables = states.of(TablesView.STATS);
        assertThat(tables.state()).isEqualTo(ReadState.COLLECTED);
        assertThat(tables.rows()).isEqualTo(1000);
        assertThat(tables.rowsNotKept()).contains("pgharvest.window.max-memory");
        assertThat(states.rows(TablesView.STATS).size()).isZero();
        assertThat(reads.refusedReads()).isEqualTo(1);
        assertThat(states.of("replication").rowsNotKept()).isNull(); // read and empty: kept, nothing there
    }
}
