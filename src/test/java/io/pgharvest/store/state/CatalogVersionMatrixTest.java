package io.pgharvest.store.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs every built-in PostgreSQL metric on a real primary and a streaming standby of each
 * supported major version, the way the collection engine does (all of a role's metrics in ONE
 * multi-statement prepared statement, in a read-only session of a role with pg_monitor but no
 * superuser rights), and checks that each query
 * succeeds, returns {@code epoch_ns} plus exactly its declared columns, reads only system
 * catalogs, and returns the values the fixture ({@link MatrixFixture}) makes predictable.
 *
 * <p>One server per version, reused for all metrics; the binaries come from the build
 * ({@code pg14.version} ... {@code pg18.version} in pom.xml). A summary per version is written
 * to {@code target/catalog-matrix/}.
 */
class CatalogVersionMatrixTest {

    /** Metrics that may return no row in the fixture on a primary, with the reason. */
    private static final Map<String, String> MAY_BE_EMPTY_ON_PRIMARY = Map.ofEntries(
            Map.entry("long_running_queries", "no query runs for a minute in the fixture"),
            Map.entry("idle_in_transaction", "no session idles for 30 s in the fixture"),
            Map.entry("vacuum_progress", "no VACUUM is running"),
            Map.entry("analyze_progress", "no ANALYZE is running"),
            Map.entry("create_index_progress", "no CREATE INDEX is running"),
            Map.entry("cluster_progress", "no CLUSTER is running"),
            Map.entry("basebackup_progress", "no base backup is running"),
            Map.entry("subscription_stats", "statistics appear after the first apply or sync error"),
            Map.entry("reco_default_public_schema", "PostgreSQL 15+ no longer lets PUBLIC create in schema public"),
            Map.entry("reco_disabled_triggers", "a finding RecommendationMetricsTest sets up; the matrix fixture has none"),
            Map.entry("reco_nested_views", "a finding RecommendationMetricsTest sets up; the matrix fixture has none"),
            Map.entry("reco_partial_index_candidates", "a finding RecommendationMetricsTest sets up; the matrix fixture has none"),
            Map.entry("reco_sprocs_wo_search_path", "a finding RecommendationMetricsTest sets up; the matrix fixture has none"),
            Map.entry("reco_superusers", "a finding RecommendationMetricsTest sets up; the matrix fixture has none"));

    /** Metrics that may return no row in the fixture on a standby, with the reason. */
    private static final Map<String, String> MAY_BE_EMPTY_ON_STANDBY = Map.ofEntries(
            Map.entry("long_running_queries", "no query runs for a minute"),
            Map.entry("idle_in_transaction", "no session idles in a transaction on the standby"),
            Map.entry("query_samples", "no other session is busy on the standby"),
            Map.entry("basebackup_progress", "no base backup is running"),
            Map.entry("replication", "the standby has no downstream standby"),
            Map.entry("replication_slot_stats", "the logical slot lives on the primary"),
            Map.entry("wait_events", "no session is active on the standby"),
            Map.entry("connections_by_client", "no client but the monitoring session is connected to the standby"),
            Map.entry("blocking_locks", "nobody waits for a lock on the standby"),
            Map.entry("function_stats", "no function was called on the standby"),
            Map.entry("sproc_stats", "no function was called on the standby"),
            Map.entry("table_io_stats", "statistics are per server; nothing read the tables on the standby"));

    private static final Set<String> SYSTEM_SCHEMAS = Set.of("pg_catalog", "information_schema");
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String SEPARATOR = "\n;\n";

    private final CatalogUnderTest catalog = CatalogUnderTest.get();

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {14, 15, 16, 17, 18})
    void everyBuiltInMetricRunsOnPrimaryAndStandbyWithItsDeclaredColumns(int major) throws Exception {
        long started = System.nanoTime();
        var problems = new ArrayList<String>();
        try (TestPostgres primary = TestPostgres.start(major, MatrixFixture.SERVER_SETTINGS)) {
            assertThat(primary.majorVersion()).isEqualTo(major);
            MatrixFixture.createObjects(primary);
            try (TestPostgres standby = primary.startStandby(MatrixFixture.STANDBY_NAME)) {
                MatrixFixture.createSubscription(primary);
                MatrixFixture.awaitStatistics(primary);
                try (var sessions = new MatrixFixture.Sessions(primary)) {
                    primary.awaitReplayedOn(standby, Duration.ofSeconds(60));
                    standby.queryString(MatrixFixture.DB, "select count(*) from orders where customer = 7");

                    var onPrimary = runRole(primary, major, false, problems);
                    var onStandby = runRole(standby, major, true, problems);

                    checkRowsPresent(onPrimary, MAY_BE_EMPTY_ON_PRIMARY, "primary", major, problems);
                    checkRowsPresent(onStandby, MAY_BE_EMPTY_ON_STANDBY, "standby", major, problems);
                    checkPrimaryValues(onPrimary, sessions, major, problems);
                    checkStandbyValues(onStandby, major, problems);
                    writeSummary(major, onPrimary, onStandby, System.nanoTime() - started);
                }
            }
        }
        assertThat(problems).as("problems of the built-in catalog on PostgreSQL %d", major).isEmpty();
    }

    /** The rows of each metric, by name, as the engine would fetch them in one round trip. */
    private Map<String, List<Map<String, Object>>> runRole(TestPostgres server, int major, boolean standby,
            List<String> problems) throws SQLException {
        String role = (standby ? "standby" : "primary") + " " + major;
        List<MetricDefinition> metrics = catalog.runnableOn(major, standby);
        var results = new LinkedHashMap<String, List<Map<String, Object>>>();
        try (Connection connection = monitoringSession(server)) {
            List<String> sqls = metrics.stream().map(m -> m.sqlFor(major).orElseThrow()).toList();
            try (PreparedStatement pipeline = connection.prepareStatement(String.join(SEPARATOR, sqls))) {
                List<ResultRows> all = collect(pipeline, pipeline.execute());
                if (all.size() != metrics.size()) {
                    problems.add(role + ": the pipeline of " + metrics.size() + " metrics returned " + all.size()
                            + " results; some metric's SQL holds more than one statement");
                }
                for (int i = 0; i < Math.min(all.size(), metrics.size()); i++) {
                    checkColumns(metrics.get(i), all.get(i).columns(), role, problems);
                    results.put(metrics.get(i).name(), all.get(i).rows());
                }
            } catch (SQLException pipelineFailure) {
                // Like the engine: find the culprits by running the metrics one by one.
                connection.rollback();
                for (MetricDefinition metric : metrics) {
                    try (PreparedStatement alone = connection.prepareStatement(metric.sqlFor(major).orElseThrow())) {
                        ResultRows rows = collect(alone, alone.execute()).getLast();
                        checkColumns(metric, rows.columns(), role, problems);
                        results.put(metric.name(), rows.rows());
                    } catch (SQLException e) {
                        problems.add(role + ": " + metric.name() + " fails: " + e.getMessage());
                    }
                    connection.rollback();
                }
            }
            for (MetricDefinition metric : metrics) {
                checkReadsOnlySystemCatalogs(connection, metric, major, role, problems);
            }
            checkInstanceVariants(connection, metrics, major, role, results, problems);
        }
        return results;
    }

    /**
     * Each instance-wide variant runs, returns {@code epoch_ns}, {@code fan_out_dbname} and the
     * declared columns, and has as many rows for this database as the per-database query returned.
     */
    private void checkInstanceVariants(Connection connection, List<MetricDefinition> metrics, int major, String role,
            Map<String, List<Map<String, Object>>> perDatabase, List<String> problems) throws SQLException {
        for (MetricDefinition metric : metrics) {
            var sql = metric.instanceSqlFor(major);
            if (sql.isEmpty()) {
                continue;
            }
            String name = metric.name() + " (instance-wide)";
            try (PreparedStatement alone = connection.prepareStatement(sql.get())) {
                ResultRows rows = collect(alone, alone.execute()).getLast();
                var expected = new ArrayList<String>(List.of("epoch_ns", MetricDefinition.FAN_OUT_KEY));
                expected.addAll(catalog.declaredColumns(metric.name()));
                if (!rows.columns().equals(expected)) {
                    problems.add(role + ": " + name + " returns " + rows.columns() + " but should return " + expected);
                }
                long here = rows.rows().stream()
                        .filter(r -> MatrixFixture.DB.equals(String.valueOf(r.get(MetricDefinition.FAN_OUT_KEY))))
                        .count();
                int expectedRows = perDatabase.getOrDefault(metric.name(), List.of()).size();
                // A top list counts its own run; sessions sampled from pg_stat_activity come and go
                // between the two reads (an autovacuum worker, another test's login): neither can match.
                boolean moving = metric.name().equals("stat_statements") || metric.name().equals("query_samples");
                if (!moving && here != expectedRows) {
                    problems.add(role + ": " + name + " has " + here + " rows for " + MatrixFixture.DB
                            + ", the per-database query " + expectedRows);
                }
            } catch (SQLException e) {
                problems.add(role + ": " + name + " fails: " + e.getMessage());
            }
            connection.rollback();
        }
    }

    /**
     * A session configured like the engine's (read-only, lock and statement timeouts, the pinned
     * search_path), as a monitoring role that is no superuser.
     */
    private static Connection monitoringSession(TestPostgres server) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", MatrixFixture.MONITOR_ROLE);
        props.setProperty("ApplicationName", "pgharvest");
        props.setProperty("options", "-c default_transaction_read_only=on -c lock_timeout=2000"
                + " -c statement_timeout=30000 -c search_path=" + SessionOpener.PINNED_SEARCH_PATH);
        Connection connection = DriverManager.getConnection(
                "jdbc:postgresql://" + server.host() + ":" + server.port() + "/" + MatrixFixture.DB, props);
        connection.setAutoCommit(false);
        return connection;
    }

    private record ResultRows(List<String> columns, List<Map<String, Object>> rows) {
    }

    private static List<ResultRows> collect(Statement statement, boolean isResultSet) throws SQLException {
        var results = new ArrayList<ResultRows>();
        boolean current = isResultSet;
        while (current || statement.getUpdateCount() != -1) {
            if (current) {
                try (ResultSet rs = statement.getResultSet()) {
                    results.add(read(rs));
                }
            }
            current = statement.getMoreResults();
        }
        return results;
    }

    private static ResultRows read(ResultSet rs) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        var columns = new ArrayList<String>();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
            columns.add(meta.getColumnLabel(i));
        }
        var rows = new ArrayList<Map<String, Object>>();
        while (rs.next()) {
            var row = new LinkedHashMap<String, Object>();
            for (int i = 1; i <= columns.size(); i++) {
                row.put(columns.get(i - 1), rs.getObject(i));
            }
            rows.add(row);
        }
        return new ResultRows(columns, rows);
    }

    private void checkColumns(MetricDefinition metric, List<String> actual, String role, List<String> problems) {
        var expected = new ArrayList<String>();
        expected.add("epoch_ns");
        expected.addAll(catalog.declaredColumns(metric.name()));
        if (!actual.equals(expected)) {
            problems.add(role + ": " + metric.name() + " returns " + actual + " but declares " + expected);
        }
    }

    /** EXPLAIN names every relation a query scans: only system catalogs may appear, never a user table. */
    private static void checkReadsOnlySystemCatalogs(Connection connection, MetricDefinition metric, int major,
            String role, List<String> problems) {
        try (Statement statement = connection.createStatement();
             ResultSet plan = statement.executeQuery("explain (verbose, format json) " + metric.sqlFor(major).orElseThrow())) {
            plan.next();
            var scanned = new TreeSet<String>();
            collectRelations(JSON.readTree(plan.getString(1)), scanned);
            scanned.removeIf(relation -> SYSTEM_SCHEMAS.contains(relation.substring(0, relation.indexOf('.'))));
            if (!scanned.isEmpty()) {
                problems.add(role + ": " + metric.name() + " scans non-catalog relations " + scanned);
            }
        } catch (SQLException e) {
            problems.add(role + ": " + metric.name() + " cannot be explained: " + e.getMessage());
        } finally {
            try {
                connection.rollback();
            } catch (SQLException e) {
                problems.add(role + ": rollback failed: " + e.getMessage());
            }
        }
    }

    private static void collectRelations(JsonNode node, Set<String> relations) {
        if (node.isObject()) {
            JsonNode relation = node.get("Relation Name");
            if (relation != null) {
                relations.add(node.path("Schema").asString("?") + "." + relation.asString());
            }
        }
        node.values().forEach(child -> collectRelations(child, relations));
    }

    private static void checkRowsPresent(Map<String, List<Map<String, Object>>> results, Map<String, String> mayBeEmpty,
            String role, int major, List<String> problems) {
        results.forEach((metric, rows) -> {
            if (rows.isEmpty() && !mayBeEmpty.containsKey(metric)) {
                problems.add(role + " " + major + ": " + metric + " returned no row");
            }
        });
    }

    private static void checkPrimaryValues(Map<String, List<Map<String, Object>>> results,
            MatrixFixture.Sessions sessions, int major, List<String> problems) {
        var check = new ValueChecks("primary " + major, results, problems);
        check.row("replication", "tag_application_name", MatrixFixture.STANDBY_NAME, "state", "streaming");
        check.row("blocking_locks", "tag_blocked_pid", Integer.toString(sessions.tailPid),
                "tag_root_blocker_pid", Integer.toString(sessions.rootPid));
        check.row("blocking_locks", "tag_blocked_pid", Integer.toString(sessions.middlePid),
                "tag_root_blocker_pid", Integer.toString(sessions.rootPid));
        // at least the two fixture sessions; a table sync of the subscription may wait for the root too
        check.number("blocking_locks", "tag_blocked_pid", Integer.toString(sessions.tailPid),
                "sessions_held_up_by_root", 2, 10);
        check.number("prepared_transactions", null, null, "prepared", 1, 1);
        check.number("sequences", "tag_sequence_name", "legacy_id_seq", "used_pct", 93, 94);
        check.number("table_bloat_approx", "tag_table_name", "orders", "bloat_pct", 35, 65);
        check.row("duplicate_indexes", "tag_index_name", "orders_customer_dup", "duplicate_of", "orders_customer");
        check.row("invalid_indexes", "tag_index_name", "dupes_v", "is_valid", 0);
        // the planner used one of the two identical indexes for the fixture's query; the other is unused
        check.row("unused_indexes", "tag_table_name", "orders", "tag_schema", "public");
        check.row("replication_slots", "tag_slot_name", "matrix_physical", "tag_slot_type", "physical");
        check.row("replication_slots", "tag_slot_name", "matrix_sub", "tag_slot_type", "logical");
        check.row("subscriptions", "tag_subscription", "matrix_sub", "enabled", 1);
        check.row("function_stats", "tag_function", "add_one(i integer)", "calls", 1L);
        check.row("stat_statements_totals", null, null, "statements", null);
        check.contains("stat_statements", "tag_query", "insert into orders");
        check.number("xmin_horizon", null, null, "prepared_xact_age", 0, 1_000_000);
        check.number("connection_usage", null, null, "max_connections", 60, 60);
        check.row("locks", "tag_mode", "ShareLock", "tag_locktype", "transactionid");
        check.number("locks", "tag_mode", "ShareLock", "waiting", 2, 10);
    }

    private static void checkStandbyValues(Map<String, List<Map<String, Object>>> results, int major,
            List<String> problems) {
        var check = new ValueChecks("standby " + major, results, problems);
        check.row("wal_receiver", "status", "streaming", "slot_name", "");
        check.number("standby_replay", null, null, "in_recovery", 1, 1);
        check.number("server_info", null, null, "in_recovery", 1, 1);
        check.contains("stat_statements", "tag_query", "from orders where customer");
    }

    private static void writeSummary(int major, Map<String, ?> onPrimary, Map<String, ?> onStandby, long nanos)
            throws IOException {
        Path dir = Path.of("target", "catalog-matrix");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("postgresql-" + major + ".txt"), "PostgreSQL " + major + ": "
                + onPrimary.size() + " metrics on the primary, " + onStandby.size() + " on the standby, "
                + Duration.ofNanos(nanos).toMillis() + " ms including server start-up and fixture\n");
    }
}
