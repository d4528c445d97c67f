package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.kind.postgres.ConnectionTester;
import io.pgharvest.kind.postgres.PostgresEndpoint;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.nativemetric.PlanningLogin;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plan change is planned and marked soon, not the next day, and also across a restart, on a real
 * server: with plans standing a day, dropping the index of a top read makes its time per call jump,
 * so query_plans plans it again on its next round and the row names the shape it replaced
 * ({@code previous_plan_hash}); a read whose pace holds is not planned again; a new collector with
 * the shapes the previous one kept in the data directory (a restart) marks the change back when the
 * index returns.
 */
class PlanChangeMarkTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "insights_plan_change";
    private static final String SELECT = "select name from change_orders where status = ?";
    private static final PlanningLogin PLANNER = new PlanningLogin(TestPostgres.TEST_PLANNER, null);

    @TempDir
    Path dataDir;

    @BeforeAll
    static void createDatabase() {
        pg.createDatabase(DB);
        pg.execute(DB, "create extension if not exists pg_stat_statements");
        pg.execute(DB, "create table change_orders (id int primary key, status text, name text)");
        pg.execute(DB, "insert into change_orders select i, 'status-' || i, 'n' || i from generate_series(1, 20000) i");
        pg.execute(DB, "create index change_orders_status on change_orders (status)");
        pg.execute(DB, "analyze change_orders");
        pg.execute("postgres", "do $$ begin if not exists (select from pg_roles where rolname = 'plan_change_monitor')"
                + " then create role plan_change_monitor login in role pg_monitor; end if; end $$");
        pg.execute("postgres", TestPostgres.CREATE_TEST_PLANNER);
    }

    @Test
    void aDroppedIndexIsPlannedAgainAtOnceAndMarkedAlsoAfterARestart() throws Exception {
        Path file = dataDir.resolve(PlanShapes.FILE_NAME);
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        String indexedHash;
        String seqHash;
        try (Connection work = pg.connect(DB); SourceSession session = monitor()) {
            var feed = new StatementFeed(session, "plan-change", DB);
            var plans = new QueryPlansCollector(10, Duration.ofDays(1), Duration.ofHours(1), Duration.ofSeconds(5),
                    PLANNER, 2, new PlanShapes(file, t0));
            Measurement.Row first = planOnce(feed, plans, work, t0);
            indexedHash = (String) first.values().get("plan_hash");
            assertThat((String) first.values().get("plan")).contains("change_orders_status");
            assertThat(first.values()).doesNotContainKey("previous_plan_hash");

            // The same pace a few minutes later: the plan stands.
            selects(work);
            feed.stats(t0.plusSeconds(180));
            assertThat(plans.collect(feed.target(t0.plusSeconds(180)))).isEmpty();

            // The index goes: the next read's time per call jumps, the next round plans it again.
            pg.execute(DB, "drop index change_orders_status");
            selects(work);
            feed.stats(t0.plusSeconds(240));
            Measurement.Row replanned = single(plans.collect(feed.target(t0.plusSeconds(240))));
            seqHash = (String) replanned.values().get("plan_hash");
            assertThat((String) replanned.values().get("plan")).contains("Seq Scan");
            assertThat(seqHash).isNotEqualTo(indexedHash);
            assertThat(replanned.values()).containsEntry("previous_plan_hash", indexedHash)
                    .containsEntry("previous_planned_at", t0.plusSeconds(60).toString());
        } finally {
            pg.execute(DB, "create index if not exists change_orders_status on change_orders (status)");
            pg.execute(DB, "analyze change_orders");
        }
        assertThat(Files.readString(file)).contains(seqHash).doesNotContain(indexedHash);

        // A restart: new collectors, the shapes read back from the data directory. The index is back.
        Instant t1 = t0.plus(Duration.ofHours(2));
        try (Connection work = pg.connect(DB); SourceSession session = monitor()) {
            var plans = new QueryPlansCollector(10, Duration.ofDays(1), Duration.ofHours(1), Duration.ofSeconds(5),
                    PLANNER, 2, new PlanShapes(file, t1));
            Measurement.Row back = planOnce(new StatementFeed(session, "plan-change", DB), plans, work, t1);
            assertThat(back.values()).containsEntry("plan_hash", indexedHash).containsEntry("previous_plan_hash", seqHash);
        }
    }

    /** A fresh source's first plan of the top read: baseline, workload, texts, a ranked read, a round. */
    private static Measurement.Row planOnce(StatementFeed feed, QueryPlansCollector plans, Connection work, Instant at)
            throws Exception {
        selects(work); // warm: the pace compared later is not that of cold buffers
        feed.stats(at);
        selects(work);
        feed.texts(at);
        feed.stats(at.plusSeconds(60));
        return single(plans.collect(feed.target(at.plusSeconds(60))));
    }

    private static Measurement.Row single(List<Measurement.Row> rows) {
        assertThat(rows).hasSize(1);
        return rows.getFirst();
    }

    private static void selects(Connection work) throws Exception {
        try (PreparedStatement select = work.prepareStatement(SELECT)) {
            for (int i = 1; i <= 200; i++) {
                select.setString(1, "status-" + i);
                select.executeQuery().close();
            }
        }
    }

    private static SourceSession monitor() throws Exception {
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1), true, false));
        return new PostgresEndpoint(opener, new ConnectionTester(opener)).open(ConnectionString.parse(
                "postgresql://plan_change_monitor@" + pg.host() + ":" + pg.port() + "/" + DB), Instant.now());
    }

}
