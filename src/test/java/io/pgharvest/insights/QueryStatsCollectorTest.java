package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.testsupport.JdbcSqlReader;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * query_stats on a real server with pg_stat_statements.max = 100: a statement run a known number of
 * times sums to that number across evictions and a reset, no change is negative, statements past
 * the top are one other row, and each read's rows add up to the database's total change.
 */
class QueryStatsCollectorTest {

    private static final String DB = "insights_stats";
    private static final String MONITOR = "insights_monitor";
    private static TestPostgres pg;

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.of("shared_preload_libraries", "pg_stat_statements",
                "pg_stat_statements.max", "100", "pg_stat_statements.track_utility", "off"));
        pg.createDatabase(DB);
        pg.execute(DB, "create extension pg_stat_statements");
        pg.execute("postgres", "create extension pg_stat_statements");
        pg.execute(DB, "create table hot (id int primary key, v text)");
        pg.execute(DB, "insert into hot select g, 'v' || g from generate_series(1, 100) g");
        pg.execute(DB, "create role " + MONITOR + " login in role pg_monitor");
        pg.createDatabase("insights_bare");
    }

    @AfterAll
    static void stopServer() {
        pg.close();
    }

    @Test
    void aHotStatementSumsToItsRunsAcrossEvictionsAndNoChangeIsNegative() throws Exception {
        try (Connection work = pg.connect(DB); Connection monitor = monitorConnection()) {
            var collector = new QueryStatsCollector(5);
            assertThat(collect(collector, monitor)).as("the first read is the baseline").isEmpty();
            long hotRuns = 0;
            long summed = 0;
            boolean approximateSeen = false;
            boolean otherSeen = false;
            for (int round = 0; round < 6; round++) {
                hotRuns += runHot(work, 20);
                burst(work, round * 50, 50); // 300 distinct statements in all, 100 fit
                List<Measurement.Row> rows = collect(collector, monitor);
                summed += calls(rows, hotQueryId(work));
                for (Measurement.Row row : rows) {
                    row.values().forEach((field, value) -> {
                        if (value instanceof Number n) {
                            assertThat(n.doubleValue()).as(field).isNotNegative();
                        }
                    });
                    approximateSeen |= Boolean.TRUE.equals(row.values().get("approximate"));
                    otherSeen |= StatementDeltas.OTHER.equals(row.tags().get("queryid"));
                }
                assertThat(rows.stream().filter(r -> StatementDeltas.OTHER.equals(r.tags().get("queryid"))))
                        .as("one other row at most").hasSizeLessThanOrEqualTo(1);
                assertThat(rows).as("the top 5 and other").hasSizeLessThanOrEqualTo(6);
            }
            assertThat(deallocations()).as("the burst evicted entries").isPositive();
            assertThat(approximateSeen).as("reads after evictions are approximate").isTrue();
            assertThat(otherSeen).as("more than 5 statements changed: other").isTrue();
            assertThat(summed).as("the hot statement's calls").isEqualTo(hotRuns);
            assertThat(collector.heldEntries()).as("the snapshot is bounded by pg_stat_statements.max")
                    .isLessThanOrEqualTo(100);
        }
    }

    @Test
    void afterAResetTheChangeIsTheCountSinceTheResetEvenWhenItExceedsTheCountBefore() throws Exception {
        try (Connection work = pg.connect(DB); Connection monitor = monitorConnection()) {
            var collector = new QueryStatsCollector(50);
            collect(collector, monitor);
            String queryId;
            try (Statement st = work.createStatement()) {
                for (int i = 0; i < 3; i++) {
                    st.executeQuery("select v, id from hot where id < 3").close();
                }
                queryId = queryIdOf(work, "select v, id from hot where id < $1");
            }
            assertThat(calls(collect(collector, monitor), queryId)).as("a statement first seen counts from zero")
                    .isEqualTo(3);
            try (Statement st = work.createStatement()) {
                st.execute("select pg_stat_statements_reset()");
                for (int i = 0; i < 7; i++) {
                    st.executeQuery("select v, id from hot where id < 3").close();
                }
            }
            List<Measurement.Row> rows = collect(collector, monitor);
            assertThat(calls(rows, queryId)).as("7 since the reset, not 7 - 3").isEqualTo(7);
        }
    }

    @Test
    void theRowsOfAReadAddUpToTheDatabasesTotalChange() throws Exception {
        try (Connection work = pg.connect(DB); Connection monitor = monitorConnection();
                Connection outside = pg.connect("postgres")) {
            pg.execute("postgres", "select pg_stat_statements_reset()"); // no evictions from other tests' entries
            var collector = new QueryStatsCollector(3);
            collect(collector, monitor);
            for (int round = 0; round < 3; round++) {
                // The totals leave the monitoring role out as the collector does, and are read
                // from another database just after each read, so they bracket exactly one change.
                long before = totalCalls(outside);
                runHot(work, 5);
                burst(work, 1000 + round * 10, 10);
                List<Measurement.Row> rows = collect(collector, monitor);
                long after = totalCalls(outside);
                assertThat(rows.getLast().tags()).containsEntry("queryid", StatementDeltas.OTHER);
                assertThat(rows.stream().mapToLong(r -> (Long) r.values().get("calls")).sum())
                        .as("round %d", round).isEqualTo(after - before);
            }
        }
    }

    @Test
    void theMonitoringRolesOwnStatementsAreLeftOutUnlessAskedFor() throws Exception {
        try (Connection work = pg.connect(DB); Connection monitor = monitorConnection()) {
            var byDefault = new QueryStatsCollector(1000);
            var withOwn = new QueryStatsCollector(1000, true);
            collect(byDefault, monitor);
            collect(withOwn, monitor);
            runHot(work, 3);
            List<Measurement.Row> rows = collect(byDefault, monitor);
            List<Measurement.Row> ownRows = collect(withOwn, monitor);
            assertThat(rows).as("the workload's statements").isNotEmpty()
                    .noneMatch(row -> MONITOR.equals(row.tags().get("user")));
            assertThat(ownRows).as("the collectors' own reads between the two reads")
                    .anyMatch(row -> MONITOR.equals(row.tags().get("user")));
        }
    }

    @Test
    void withoutTheExtensionInTheDatabaseTheMetricIsUnavailableWithTheReason() throws Exception {
        try (Connection bare = pg.connect("insights_bare")) {
            var collector = new QueryStatsCollector(50);
            assertThatThrownBy(() -> collector.collect(target(bare, "insights_bare")))
                    .isInstanceOf(NativeMetric.Unavailable.class)
                    .hasMessageContaining("pg_stat_statements is not installed in database insights_bare");
        }
    }

    private static Connection monitorConnection() throws SQLException {
        return java.sql.DriverManager.getConnection(pg.jdbcUrl(DB).replace("user=postgres", "user=" + MONITOR));
    }

    private static List<Measurement.Row> collect(QueryStatsCollector collector, Connection monitor) throws Exception {
        return collector.collect(target(monitor, DB));
    }

    private static NativeTarget target(Connection connection, String database) {
        return new NativeTarget("test", database, pg.majorVersion(), ":0", true, new JdbcSqlReader(connection),
                Duration.ofSeconds(60), Instant.now(), null);
    }

    private static int runHot(Connection work, int times) throws SQLException {
        try (PreparedStatement hot = work.prepareStatement("select v from hot where id = ?")) {
            for (int i = 0; i < times; i++) {
                hot.setInt(1, i % 100 + 1);
                hot.executeQuery().close();
            }
        }
        return times;
    }

    /** Statements that differ after normalization: a chain of n additions is a tree of its own. */
    private static void burst(Connection work, int from, int count) throws SQLException {
        try (Statement st = work.createStatement()) {
            for (int n = from; n < from + count; n++) {
                st.executeQuery("select 1" + " + id".repeat(n + 1) + " from hot where id = 1").close();
            }
        }
    }

    private static String hotQueryId(Connection work) throws SQLException {
        return queryIdOf(work, "select v from hot where id = $1");
    }

    private static String queryIdOf(Connection connection, String query) throws SQLException {
        try (PreparedStatement st = connection.prepareStatement(
                "select queryid::text from pg_stat_statements where query = ? and dbid = (select oid from pg_database"
                        + " where datname = current_database())")) {
            st.setString(1, query);
            try (ResultSet rs = st.executeQuery()) {
                assertThat(rs.next()).as("pg_stat_statements has %s", query).isTrue();
                return rs.getString(1);
            }
        }
    }

    private static long calls(List<Measurement.Row> rows, String queryId) {
        return rows.stream().filter(r -> queryId.equals(r.tags().get("queryid")))
                .mapToLong(r -> (Long) r.values().get("calls")).sum();
    }

    private static long totalCalls(Connection outside) throws SQLException {
        try (Statement st = outside.createStatement(); ResultSet rs = st.executeQuery(
                "select coalesce(sum(calls), 0)::int8 from pg_stat_statements(false)"
                        + " where dbid = (select oid from pg_database where datname = '" + DB + "')"
                        + " and userid <> (select oid from pg_roles where rolname = '" + MONITOR + "')")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long deallocations() throws SQLException {
        return Long.parseLong(pg.queryString("postgres", "select dealloc from pg_stat_statements_info"));
    }
}
