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
import io.pgharvest.nativemetric.SqlReader;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * query_plans on real servers before and after PostgreSQL 16, with query_stats and query_texts
 * feeding it on the same source, through a real session as a role with pg_monitor and
 * pg_read_all_data: a top SELECT gets its plan once, not on every read; the top UPDATE, INSERT and
 * utility statements get none; after the index it used is dropped, the next day's plan has
 * another hash; a constant of a view in a plan condition is redacted; the hour's time budget
 * stops planning once spent and planning resumes the next hour.
 */
class QueryPlansCollectorTest {

    private static final String DB = "insights_plans";
    private static final String SECRET = "status-secret-77";
    private static final Duration LONG = Duration.ofHours(1);
    private static final PlanningLogin PLANNER = new PlanningLogin("plans_planner", null);

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {14, 16})
    void plansTheTopReadsOnceRedactedAndShowAChangedPlan(int major) throws Exception {
        try (TestPostgres server = startServer(major); Connection work = server.connect(DB);
                SourceSession session = monitor(server)) {
            var feed = new StatementFeed(session, "plans", DB);
            var plans = new QueryPlansCollector(10, Duration.ofDays(1), LONG, Duration.ofSeconds(5), PLANNER);
            Instant now = Instant.parse("2026-01-01T00:00:00Z");
            feed.stats(now);
            workload(work);
            feed.texts(now);
            feed.stats(now);

            List<Measurement.Row> first = plans.collect(feed.target(now));
            String selectId = queryId(server, "select name from orders where status = $1");
            String viewId = queryId(server, "select count(*) from paid_orders where id > $1");
            assertThat(first).extracting(r -> r.tags().get("queryid")).containsExactlyInAnyOrder(selectId, viewId);
            assertThat(first).allSatisfy(r -> assertThat(r.tags()).containsEntry("dbname", DB));
            assertThat(first).allSatisfy(r -> assertThat(r.values()).containsEntry("planned_as", "plans_planner"));
            Measurement.Row select = byId(first, selectId);
            assertThat((String) select.values().get("plan")).contains("orders_status").contains("$1");
            Measurement.Row view = byId(first, viewId);
            assertThat((String) view.values().get("plan")).contains("Filter").doesNotContain(SECRET);
            assertThat(first).noneMatch(r -> ((String) r.values().get("plan")).contains(SECRET));

            // Again within the day, the statements still on top: no plan is asked again.
            workload(work);
            feed.stats(now.plusSeconds(300));
            assertThat(plans.collect(feed.target(now.plusSeconds(300)))).isEmpty();

            // The index goes: the next day's plan of the same statement has another hash.
            server.execute(DB, "drop index orders_status");
            workload(work);
            Instant nextDay = now.plus(Duration.ofDays(1)).plusSeconds(1);
            feed.stats(nextDay);
            Measurement.Row replanned = byId(plans.collect(feed.target(nextDay)), selectId);
            assertThat((String) replanned.values().get("plan")).doesNotContain("orders_status").contains("Seq Scan");
            assertThat(replanned.values().get("plan_hash")).isNotEqualTo(select.values().get("plan_hash"));
        }
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {16})
    void theHoursBudgetStopsPlanningOnceSpent(int major) throws Exception {
        try (TestPostgres server = startServer(major); Connection work = server.connect(DB);
                SourceSession session = monitor(server)) {
            var feed = new StatementFeed(session, "plans", DB);
            var plans = new QueryPlansCollector(10, Duration.ofDays(1), Duration.ofNanos(1), Duration.ofSeconds(5),
                    PLANNER);
            Instant now = Instant.parse("2026-01-01T00:00:00Z");
            feed.stats(now);
            workload(work);
            feed.texts(now);
            feed.stats(now);
            assertThat(plans.collect(feed.target(now))).hasSize(1);
            assertThat(plans.spentThisHour()).isPositive();
            assertThat(plans.collect(feed.target(now.plusSeconds(1800)))).isEmpty();
            // The next hour has a budget again: the second read statement gets its plan.
            assertThat(plans.collect(feed.target(now.plus(LONG)))).hasSize(1);
        }
    }


    /** The engine's reads on a session: with the session's timeout or a metric's own. */
    record SessionReader(SourceSession session) implements SqlReader {

        @Override
        public List<Map<String, Object>> query(String sql, Object... parameters) throws SQLException {
            return session.read(sql, parameters);
        }

        @Override
        public List<Map<String, Object>> query(Duration timeout, String sql, Object... parameters)
                throws SQLException {
            return session.read(timeout, sql, parameters);
        }
    }

    static TestPostgres startServer(int major) {
        TestPostgres server = TestPostgres.start(major, Map.of("shared_preload_libraries", "pg_stat_statements"));
        server.createDatabase(DB);
        server.execute(DB, "create extension pg_stat_statements");
        server.execute(DB, "create table orders (id int primary key, status text, name text, total int)");
        server.execute(DB, "insert into orders select i, 'status-' || i, 'n' || i, i from generate_series(1, 5000) i");
        server.execute(DB, "create index orders_status on orders (status)");
        server.execute(DB, "create view paid_orders as select * from orders where status = '" + SECRET + "'");
        server.execute(DB, "analyze orders");
        server.execute("postgres", "create role plans_monitor login in role pg_monitor, pg_read_all_data");
        server.execute("postgres", "create role plans_planner login in role pg_read_all_data");
        return server;
    }

    static SourceSession monitor(TestPostgres server) throws Exception {
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1), true, false));
        return new PostgresEndpoint(opener, new ConnectionTester(opener)).open(ConnectionString.parse(
                "postgresql://plans_monitor@" + server.host() + ":" + server.port() + "/" + DB), Instant.now());
    }

    /** Two reads, a write of each kind and a utility statement, each run enough to be on top. */
    private static void workload(Connection work) throws Exception {
        try (PreparedStatement select = work.prepareStatement("select name from orders where status = ?");
                PreparedStatement view = work.prepareStatement("select count(*) from paid_orders where id > ?");
                PreparedStatement update = work.prepareStatement("update orders set total = total + 1 where id = ?");
                PreparedStatement insert = work.prepareStatement(
                        "insert into orders values (?, 'new', 'n', 0) on conflict (id) do nothing");
                Statement utility = work.createStatement()) {
            for (int i = 1; i <= 20; i++) {
                select.setString(1, "status-" + i);
                select.executeQuery().close();
                view.setInt(1, i);
                view.executeQuery().close();
                update.setInt(1, i);
                update.executeUpdate();
                insert.setInt(1, 10_000 + i);
                insert.executeUpdate();
            }
            for (int i = 0; i < 3; i++) {
                utility.execute("analyze orders");
            }
        }
    }

    private static String queryId(TestPostgres server, String text) {
        return server.queryString(DB, "select queryid::text from pg_stat_statements where query = '"
                + text.replace("'", "''") + "' limit 1");
    }

    private static Measurement.Row byId(List<Measurement.Row> rows, String queryId) {
        return rows.stream().filter(r -> queryId.equals(r.tags().get("queryid"))).findFirst()
                .orElseThrow(() -> new AssertionError("no plan for " + queryId + " in " + rows));
    }
}
