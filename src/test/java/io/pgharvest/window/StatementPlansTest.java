package io.pgharvest.window;

import static io.pgharvest.window.RecentWindowTest.measurement;
import static io.pgharvest.window.RecentWindowTest.row;
import static io.pgharvest.window.RecentWindowTest.values;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The window's plans without a server: the latest plan of each statement and database with the
 * hash it replaced and when, a plan's JSON bounded per plan and by the window's memory, the oldest
 * read plans leaving first, and every byte released when the source leaves.
 */
@Tag("fast")
class StatementPlansTest {

    private static final Instant T0 = Instant.parse("2026-11-28T06:00:00Z");
    private static final String INDEX_SCAN = "[{\"Plan\":{\"Node Type\":\"Index Scan\",\"Index Name\":\"orders_status\"}}]";
    private static final String SEQ_SCAN = "[{\"Plan\":{\"Node Type\":\"Seq Scan\",\"Relation Name\":\"orders\"}}]";

    private final Clock clock = Clock.fixed(T0.plusSeconds(600), ZoneOffset.UTC);

    @Test
    void aPlanWithAnotherHashIsMarkedChangedAndTheMarkStaysWhileThatHashIsReadAgain() {
        var window = new RecentWindow(new WindowLimits(3_600_000, 720, 100), 1 << 20, clock);
        window.record(List.of(plans(T0, plan("42", "shop", INDEX_SCAN, "aaaa"), plan("42", "books", SEQ_SCAN, "cccc"))));
        Plan first = plansOf(window, "42").getFirst();
        assertThat(plansOf(window, "42")).extracting(Plan::dbname).containsExactly("books", "shop");
        Plan shop = plansOf(window, "42").get(1);
        assertThat(shop.hash()).isEqualTo("aaaa");
        assertThat(shop.plan()).isEqualTo(INDEX_SCAN);
        assertThat(shop.readAt()).isEqualTo(T0);
        assertThat(shop.previousHash()).isNull();
        assertThat(shop.changedAt()).isNull();
        assertThat(first.previousHash()).isNull();

        window.record(List.of(plans(T0.plusSeconds(60), plan("42", "shop", SEQ_SCAN, "bbbb"))));
        Plan changed = plansOf(window, "42").get(1);
        assertThat(changed.plan()).isEqualTo(SEQ_SCAN);
        assertThat(changed).extracting(Plan::hash, Plan::previousHash, Plan::previousReadAt, Plan::changedAt)
                .containsExactly("bbbb", "aaaa", T0, T0.plusSeconds(60));
        // the other database's plan of the same query id did not change
        assertThat(plansOf(window, "42").getFirst().changedAt()).isNull();

        window.record(List.of(plans(T0.plusSeconds(120), plan("42", "shop", SEQ_SCAN, "bbbb"))));
        assertThat(plansOf(window, "42").get(1))
                .extracting(Plan::hash, Plan::readAt, Plan::previousHash, Plan::previousReadAt, Plan::changedAt)
                .containsExactly("bbbb", T0.plusSeconds(120), "aaaa", T0, T0.plusSeconds(60));
        assertThat(plansOf(window, "7")).isEmpty();
    }

    @Test
    void aPlanOverThePerPlanBoundOrThatIsNotJsonKeepsItsHashAndTimesWithoutIt() {
        long maxPlanBytes = 2_048; // 1,024 characters
        var window = new RecentWindow(new WindowLimits(3_600_000, 720, 100, 10, 10, 10, maxPlanBytes), 1 << 20, clock);
        String large = "[{\"Plan\":{\"Node Type\":\"Seq Scan\",\"Filter\":\"" + "x".repeat(1_100) + "\"}}]";
        window.record(List.of(plans(T0, plan("1", "shop", large, "1111"), plan("2", "shop", "[1] , {\"x\":2}", "2222"),
                plan("3", "shop", "\"just a string\"", "3333"))));

        Plan cut = plansOf(window, "1").getFirst();
        assertThat(cut.plan()).isNull();
        assertThat(cut.hash()).isEqualTo("1111");
        assertThat(cut.omitted()).contains("larger than the window keeps per plan").contains("2048 bytes");
        assertThat(plansOf(window, "2").getFirst().omitted()).isEqualTo("not a JSON array or object");
        assertThat(plansOf(window, "3").getFirst().plan()).isNull();
        assertThat(window.budget().reserved()).isLessThan(3 * 512);

        // the large plan shrinks below the bound: its JSON is kept, and the change of hash shows
        window.record(List.of(plans(T0.plusSeconds(1), plan("1", "shop", SEQ_SCAN, "1112"))));
        assertThat(plansOf(window, "1").getFirst()).extracting(Plan::plan, Plan::previousHash, Plan::omitted)
                .containsExactly(SEQ_SCAN, "1111", null);
    }

    @Test
    void thePlansReadLongestAgoLeaveFirstAndTheMemoryBoundKeepsHashesWithoutJson() {
        var window = new RecentWindow(new WindowLimits(3_600_000, 720, 100, 10, 10, 2, 1 << 20), 1 << 20, clock);
        window.record(List.of(plans(T0, plan("1", "shop", SEQ_SCAN, "a1"))));
        window.record(List.of(plans(T0.plusSeconds(1), plan("2", "shop", SEQ_SCAN, "a2"))));
        window.record(List.of(plans(T0.plusSeconds(2), plan("1", "shop", INDEX_SCAN, "b1")))); // read again: newest
        window.record(List.of(plans(T0.plusSeconds(3), plan("3", "shop", SEQ_SCAN, "a3"))));
        assertThat(plansOf(window, "2")).isEmpty();
        assertThat(plansOf(window, "1")).extracting(Plan::hash).containsExactly("b1");
        assertThat(plansOf(window, "3")).extracting(Plan::hash).containsExactly("a3");
        long two = window.budget().reserved();
        assertThat(two).isEqualTo(plansOf(window, "1").getFirst().bytes() + plansOf(window, "3").getFirst().bytes());

        // a budget with room for the hashes only
        String big = "[\"" + "y".repeat(2_000) + "\"]";
        var tight = new RecentWindow(new WindowLimits(3_600_000, 720, 100, 10, 10, 10, 1 << 20), 2_000, clock);
        tight.record(List.of(plans(T0, plan("1", "shop", big, "c1"))));
        Plan kept = plansOf(tight, "1").getFirst();
        assertThat(kept.plan()).isNull();
        assertThat(kept.omitted()).contains("pgharvest.window.max-memory");
        assertThat(tight.budget().reserved()).isEqualTo(kept.bytes()).isLessThanOrEqualTo(2_000);
    }

    @Test
    void aSourceThatLeavesTheWindowReleasesItsPlans() {
        var window = new RecentWindow(new WindowLimits(60_000, 720, 100), 1 << 20, clock); // now = T0 + 600 s
        window.record(List.of(plans(T0, plan("1", "shop", SEQ_SCAN, "a1"), plan("2", "shop", INDEX_SCAN, "a2"))));
        assertThat(window.budget().reserved()).isPositive();
        window.sweep();
        assertThat(window.source("a")).isEmpty();
        assertThat(window.budget().reserved()).isZero();
    }

    @Test
    void theStatementListMarksOnlyTheDatabaseWhosePlanChangedWithinTheSpan() {
        var window = new RecentWindow(new WindowLimits(3_600_000, 720, 100), 1 << 20, clock);
        for (String dbname : List.of("shop", "books")) {
            window.record(List.of(measurement("a", "query_stats", T0, row(values("calls", 2, "total_exec_time", 5.0,
                    "rows", 1, "shared_blks_read", 0), Map.of("queryid", "42", "dbname", dbname, "user", "app",
                    "toplevel", "true")))));
        }
        window.record(List.of(plans(T0, plan("42", "shop", INDEX_SCAN, "aaaa"), plan("42", "books", INDEX_SCAN, "aaaa"))));
        window.record(List.of(plans(T0.plusSeconds(60), plan("42", "shop", SEQ_SCAN, "bbbb"),
                plan("42", "books", INDEX_SCAN, "aaaa"))));
        SourceWindow source = window.source("a").orElseThrow();

        assertThat(source.statements(0)).extracting(Statement::dbname, Statement::planChangedAt)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("shop", T0.plusSeconds(60)),
                        org.assertj.core.groups.Tuple.tuple("books", null));
        // a change before the span is not marked
        assertThat(source.statements(T0.plusSeconds(61).toEpochMilli())).extracting(Statement::planChangedAt)
                .containsOnlyNulls();
    }

    @Test
    void aFirstPlanThatNamesTheShapeItReplacedIsMarkedChanged() {
        // After a restart the window holds no plan, but query_plans kept the previous shape.
        var window = new RecentWindow(new WindowLimits(3_600_000, 720, 100), 1 << 20, clock);
        window.record(List.of(measurement("a", "query_stats", T0, row(values("calls", 2, "total_exec_time", 5.0,
                "rows", 1, "shared_blks_read", 0), Map.of("queryid", "42", "dbname", "shop", "user", "app",
                "toplevel", "true")))));
        window.record(List.of(plans(T0.plusSeconds(30), row(values("plan", SEQ_SCAN, "plan_hash", "bbbb",
                "previous_plan_hash", "aaaa", "previous_planned_at", T0.minusSeconds(7200).toString()),
                Map.of("queryid", "42", "dbname", "shop")))));
        assertThat(plansOf(window, "42").getFirst())
                .extracting(Plan::hash, Plan::previousHash, Plan::previousReadAt, Plan::changedAt)
                .containsExactly("bbbb", "aaaa", T0.minusSeconds(7200), T0.plusSeconds(30));
        assertThat(window.source("a").orElseThrow().statements(0)).extracting(Statement::planChangedAt)
                .containsExactly(T0.plusSeconds(30));
        // A row naming its own hash as the previous one changes nothing.
        window.record(List.of(plans(T0.plusSeconds(40), row(values("plan", INDEX_SCAN, "plan_hash", "cccc",
                "previous_plan_hash", "cccc"), Map.of("queryid", "7", "dbname", "shop")))));
        assertThat(plansOf(window, "7").getFirst().changedAt()).isNull();
    }

    @Test
    void aStatementRunningAtTheNewestSamplingIsListedAsRunningWhileTheSamplingIsRecent() {
        var window = new RecentWindow(new WindowLimits(3_600_000, 720, 100), 1 << 20, clock);
        window.record(List.of(measurement("a", "query_stats", T0, row(values("calls", 2, "total_exec_time", 5.0,
                "rows", 1, "shared_blks_read", 0), Map.of("queryid", "42", "dbname", "shop", "user", "app",
                "toplevel", "true")))));
        Instant sampled = T0.plusSeconds(10);
        window.record(List.of(measurement("a", "query_samples", sampled,
                row(values("state", "active", "running", true), Map.of("pid", "1", "queryid", "42", "dbname", "shop")),
                row(values("state", "active", "running", true), Map.of("pid", "2", "queryid", "42", "dbname", "shop")),
                row(values("state", "active", "running", true), Map.of("pid", "3", "queryid", "99", "dbname", "shop")),
                row(values("state", "active", "running", false), Map.of("pid", "4", "queryid", "55", "dbname", "shop")),
                row(values("state", "idle in transaction", "running", true),
                        Map.of("pid", "5", "queryid", "66", "dbname", "shop")))));
        SourceWindow source = window.source("a").orElseThrow();
        long now = sampled.plusSeconds(5).toEpochMilli();
        assertThat(source.statements(0, now)).extracting(Statement::queryid, Statement::runningSessions, Statement::calls)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("42", 2, 2.0),
                        org.assertj.core.groups.Tuple.tuple("99", 1, 0.0));
        // The newest sampling found nobody: nothing runs.
        window.record(List.of(measurement("a", "query_samples", sampled.plusSeconds(10))));
        assertThat(source.statements(0, now)).extracting(Statement::runningSessions).containsOnly(0);
        // A sampling older than the freshness bound makes nothing "running".
        window.record(List.of(measurement("a", "query_samples", sampled.plusSeconds(20),
                row(values("state", "active"), Map.of("pid", "1", "queryid", "42", "dbname", "shop")))));
        assertThat(source.statements(0, now)).extracting(Statement::runningSessions).containsOnly(1);
        assertThat(source.statements(0, sampled.plusSeconds(20).toEpochMilli() + SourceWindow.RUNNING_FRESH_MILLIS + 1))
                .extracting(Statement::runningSessions).containsOnly(0);
    }

    private static Measurement plans(Instant time, Measurement.Row... rows) {
        return measurement("a", "query_plans", time, rows);
    }

    private static Measurement.Row plan(String queryid, String dbname, String json, String hash) {
        return row(values("plan", json, "plan_hash", hash), Map.of("queryid", queryid, "dbname", dbname));
    }

    private static List<Plan> plansOf(RecentWindow window, String queryid) {
        return window.source("a").map(source -> source.plans(queryid)).orElse(List.of());
    }
}
