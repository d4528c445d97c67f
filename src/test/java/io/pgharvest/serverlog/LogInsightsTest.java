package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.GenericPlans;
import io.pgharvest.nativemetric.InstanceShelf;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.SourceShelf;
import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.store.LogPositions;
import io.pgharvest.store.file.FileLogPositions;
import io.pgharvest.testsupport.JdbcSqlReader;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The log_* metrics against a real server writing csvlog, jsonlog and stderr with two prefixes:
 * each category from events the test causes (autovacuum after a bloat, a forced checkpoint, a lock
 * wait past deadlock_timeout, a deadlock, a temp file, a wrong password, a slow statement and its
 * auto_explain plan), and none of the literals the workload wrote reaches a row. The first stderr
 * prefix has no client address: there, connection failures are unavailable with the escape to add.
 */
class LogInsightsTest {

    static final String PREFIX_A = "%m [%p] %q%u@%d %e %Q ";
    static final String PREFIX_B = "%t:%h:%u@%d:[%p]:%e:%Q: ";
    private static final String CORPUS = "corpus-";
    private static final String CURRENT_CSV_SIZE = "select (pg_stat_file(pg_current_logfile('csvlog'))).size::text";
    private static TestPostgres pg;
    private final List<Connection> connections = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        pg = TestPostgres.start(Map.ofEntries(Map.entry("logging_collector", "on"),
                Map.entry("log_destination", "csvlog"), Map.entry("log_filename", "postgresql-%Y%m%d_%H%M%S.log"),
                Map.entry("log_rotation_age", "0"), Map.entry("log_rotation_size", "0"),
                Map.entry("lc_messages", "C"), Map.entry("log_autovacuum_min_duration", "0"),
                Map.entry("autovacuum_naptime", "1s"), Map.entry("log_checkpoints", "on"),
                Map.entry("log_lock_waits", "on"), Map.entry("deadlock_timeout", "200ms"),
                Map.entry("log_temp_files", "0"), Map.entry("compute_query_id", "on"),
                Map.entry("log_min_duration_statement", "250ms"), Map.entry("shared_preload_libraries", "auto_explain"),
                Map.entry("auto_explain.log_min_duration", "250ms"), Map.entry("auto_explain.log_analyze", "on")));
        pg.createDatabase("loginsights");
        pg.execute("loginsights", "create role pwuser login password 'right-password'");
        pg.replaceHbaConf("""
                local all all trust
                host all pwuser 127.0.0.1/32 scram-sha-256
                host all all 127.0.0.1/32 trust
                host all all ::1/128 trust
                """);
    }

    @AfterAll
    static void stopServer() {
        pg.close();
    }

    @AfterEach
    void closeConnections() throws SQLException {
        for (Connection connection : connections) {
            connection.close();
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {"csvlog|json|", "jsonlog|json|", "stderr|text|'" + PREFIX_A + "'",
        "stderr|text|'" + PREFIX_B + "'"})
    void everyCategoryComesFromTheEventsTheServerLogged(String destination, String planFormat, String prefix)
            throws Exception {
        logTo(destination, prefix == null ? "%m [%p] " : prefix, planFormat);
        var reading = new Reading(LogPositions.inMemory(), LogInsightsTail.READ_BUDGET, connect());
        reading.tick();
        String suffix = destination + (prefix == null ? "" : Integer.toString(prefix.length()));

        bloatAndLeaveToAutovacuum("bloat_" + suffix);
        pg.execute("loginsights", "checkpoint");
        Connection worker = connect();
        execute(worker, "set work_mem = '64kB'");
        execute(worker, "select g from generate_series(1, 100000) g order by g desc");
        execute(worker, "select pg_sleep(0.3), 'corpus-sleeping' as s");
        assertThatThrownBy(() -> DriverManager.getConnection(
                "jdbc:postgresql://" + pg.host() + ":" + pg.port() + "/loginsights", credentials("pwuser",
                "corpus-wrong-password"))).isInstanceOf(SQLException.class);
        writeCorpus();
        long[] lock = waitOnALock("locks_" + suffix);
        long[] deadlock = provokeADeadlock("deadlocks_" + suffix);

        reading.until(LogCategory.AUTOVACUUM, row -> ("public.bloat_" + suffix).equals(row.tags().get("table"))
                && "vacuum".equals(row.values().get("kind")) && Long.valueOf(4000).equals(row.values().get("tuples_removed")));
        reading.until(LogCategory.CHECKPOINTS, row -> String.valueOf(row.values().get("reason")).contains("force")
                && row.values().get("total_s") instanceof Double);
        reading.until(LogCategory.TEMP_FILES, row -> ((Long) row.values().get("size_bytes")) > 0
                && row.values().get("queryid") != null);
        if (prefix != null && !prefix.contains("%h")) {
            assertThatThrownBy(() -> reading.collect(LogCategory.CONNECTION_FAILURES))
                    .isInstanceOf(NativeMetric.Unavailable.class).hasMessageContaining("neither %h nor %r");
        } else {
            reading.until(LogCategory.CONNECTION_FAILURES, row -> "invalid_password".equals(row.tags().get("cause"))
                    && "pwuser".equals(row.values().get("user_name"))
                    && "127.0.0.1".equals(row.values().get("client_addr"))
                    && Long.valueOf(1).equals(row.values().get("count")));
        }
        Measurement.Row slow = reading.until(LogCategory.SLOW_STATEMENTS,
                row -> String.valueOf(row.values().get("query")).contains("pg_sleep")
                        && ((Double) row.values().get("duration_ms")) >= 300);
        assertThat(slow.values().get("queryid")).isNotNull();
        reading.until(LogCategory.PLANS, row -> slow.values().get("queryid").equals(row.values().get("queryid"))
                && Double.valueOf(1).equals(row.values().get("actual_rows")) && planFormat.equals(row.values().get("format")));
        reading.until(LogCategory.LOCK_WAITS, row -> "waiting".equals(row.values().get("state"))
                && String.valueOf(lock[1]).equals(row.values().get("pid"))
                && String.valueOf(lock[0]).equals(row.values().get("holder_pids")));
        reading.until(LogCategory.LOCK_WAITS, row -> "acquired".equals(row.values().get("state"))
                && String.valueOf(lock[1]).equals(row.values().get("pid")) && ((Double) row.values().get("wait_ms")) >= 200);
        reading.until(LogCategory.DEADLOCKS, row -> String.valueOf(deadlock[0]).equals(row.values().get("pid"))
                && String.valueOf(deadlock[2]).equals(row.values().get("queryid"))
                && String.valueOf(deadlock[1]).equals(row.values().get("other_pids"))
                && String.valueOf(deadlock[3]).equals(row.values().get("other_queryids")));
        reading.until(LogCategory.ERRORS, row -> "22P02".equals(row.values().get("sqlstate"))
                && "22".equals(row.tags().get("class")));

        reading.assertNoValueContains(CORPUS);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"log_errors,'%m [%p] ',log_line_prefix has no %e", "log_connection_failures,'%m [%p] ',neither %h nor %r"})
    void aPrefixWithoutWhatACategoryNeedsMakesItUnavailableWithTheSettingToAdd(String metric, String prefix,
            String reason) throws Exception {
        logTo("stderr", prefix, "text");
        var reading = new Reading(LogPositions.inMemory(), LogInsightsTail.READ_BUDGET, connect());
        LogCategory category = LogCategory.valueOf(metric.substring(4).toUpperCase(java.util.Locale.ROOT));

        assertThatThrownBy(() -> reading.collect(category)).isInstanceOf(NativeMetric.Unavailable.class)
                .hasMessageContaining(reason);
    }

    @org.junit.jupiter.api.Test
    void aRotationAndARestartInTheMiddleOfAFileReadEveryEventOnce(@org.junit.jupiter.api.io.TempDir Path dataDir)
            throws Exception {
        logTo("csvlog", "%m [%p] ", "json");
        pg.createDatabase("rotation");
        Path positionsFile = dataDir.resolve("log-positions.json");
        var before = new Reading(new FileLogPositions(positionsFile), 4096, connect());
        before.tick();

        long sizeBefore = Long.parseLong(pg.queryString("postgres", CURRENT_CSV_SIZE));
        errors(30);
        await().atMost(Duration.ofSeconds(10)).until(() -> Long.parseLong(pg.queryString("postgres", CURRENT_CSV_SIZE))
                > sizeBefore + 30 * 200);
        before.tick();
        long readBefore = errorsIn(before);
        assertThat(readBefore).as("the first read stops within its budget, in the middle of the file")
                .isPositive().isLessThan(30);

        // pgharvest restarts: a new reading with the positions the store kept
        rotate();
        errors(20);
        var after = new Reading(new FileLogPositions(positionsFile), LogInsightsTail.READ_BUDGET, connect());
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            after.tick();
            assertThat(readBefore + errorsIn(after)).isEqualTo(50);
        });
        after.tick();
        assertThat(readBefore + errorsIn(after)).as("nothing read twice").isEqualTo(50);
    }

    private static void errors(int count) {
        for (int i = 0; i < count; i++) {
            assertThatThrownBy(() -> pg.execute("rotation", "select 1 / 0")).isInstanceOf(RuntimeException.class);
        }
    }

    private static long errorsIn(Reading reading) {
        return reading.rows(LogCategory.ERRORS).stream().filter(row -> "rotation".equals(row.values().get("dbname"))
                && "22012".equals(row.values().get("sqlstate"))).mapToLong(row -> (Long) row.values().get("count")).sum();
    }

    /** Rotates to a new file (its name has the second in it: retried until the name changes). */
    private static void rotate() {
        String before = pg.queryString("postgres", "select pg_current_logfile()");
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).until(() -> {
            pg.execute("postgres", "select pg_rotate_logfile()");
            String now = pg.queryString("postgres", "select pg_current_logfile()");
            return now != null && !now.equals(before);
        });
    }

    private void writeCorpus() throws SQLException {
        Connection corpus = connect();
        execute(corpus, "create table if not exists corpus (email text unique)");
        execute(corpus, "insert into corpus values ('corpus-mail@example.com') on conflict do nothing");
        for (String sql : List.of("select 'corpus-plain'::int", "select E'corpus-\\'escaped'::int",
                "select $q$corpus-dollar$q$::int", "select U&'corpus-\\0041'::int",
                "insert into corpus values ('corpus-mail@example.com')", "select 1 /* corpus-comment */ / 0")) {
            assertThatThrownBy(() -> execute(corpus, sql)).isInstanceOf(SQLException.class);
        }
        try (PreparedStatement statement = corpus.prepareStatement("select pg_sleep(0.3) where ? <> ''")) {
            statement.setString(1, "corpus-parameter");
            statement.execute();
        }
    }

    private void bloatAndLeaveToAutovacuum(String table) throws SQLException {
        Connection connection = connect();
        execute(connection, "create table " + table + " (id int, pad text) with (autovacuum_vacuum_threshold = 0,"
                + " autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_insert_threshold = 100000000)");
        execute(connection, "insert into " + table + " select g, 'padding' from generate_series(1, 5000) g");
        execute(connection, "delete from " + table + " where id <= 4000");
    }

    /** A waits for B's row lock past deadlock_timeout; returns {holder pid, waiter pid}. */
    private long[] waitOnALock(String table) throws Exception {
        Connection holder = connect();
        Connection waiter = connect();
        execute(holder, "create table " + table + " (id int primary key, v int)");
        execute(holder, "insert into " + table + " values (1, 0)");
        long holderPid = pid(holder);
        long waiterPid = pid(waiter);
        holder.setAutoCommit(false);
        execute(holder, "update " + table + " set v = 1 where id = 1");
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
            try {
                execute(waiter, "update " + table + " set v = 2 where id = 1");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitLockWaitLogged(waiterPid);
        holder.commit();
        waiting.get();
        holder.setAutoCommit(true);
        return new long[] {holderPid, waiterPid};
    }

    /**
     * B waits for A's row past deadlock_timeout (so its lock-wait line carries its query ID), then A
     * asks for B's row and is the victim. Returns {A's pid, B's pid, A's query ID, B's query ID}.
     */
    private long[] provokeADeadlock(String table) throws Exception {
        Connection a = connect();
        Connection b = connect();
        execute(a, "create table " + table + " (id int primary key, v int)");
        execute(a, "insert into " + table + " values (1, 0), (2, 0)");
        long aPid = pid(a);
        long bPid = pid(b);
        a.setAutoCommit(false);
        b.setAutoCommit(false);
        execute(a, "update " + table + " set v = v + 1 where id = 1");
        execute(b, "update " + table + " set v = 7 where id = 2");
        CompletableFuture<Void> bWaits = CompletableFuture.runAsync(() -> {
            try {
                execute(b, "update " + table + " set v = 8 where id = 1");
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitLockWaitLogged(bPid);
        String aStatement = "update " + table + " set v = v * 2 where id = 2";
        long aQueryId = queryId(aStatement);
        long bQueryId = queryId("update " + table + " set v = 8 where id = 1");
        assertThat(aQueryId).isNotEqualTo(bQueryId);
        assertThatThrownBy(() -> execute(a, aStatement))
                .isInstanceOf(SQLException.class).extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("40P01");
        a.rollback();
        bWaits.get();
        b.commit();
        return new long[] {aPid, bPid, aQueryId, bQueryId};
    }

    /** The query ID the server computes for {@code sql} (EXPLAIN VERBOSE shows it, without running it). */
    private long queryId(String sql) throws SQLException {
        try (Statement statement = connect().createStatement();
                var rows = statement.executeQuery("explain (verbose) " + sql)) {
            while (rows.next()) {
                String line = rows.getString(1).strip();
                if (line.startsWith("Query Identifier: ")) {
                    return Long.parseLong(line.substring("Query Identifier: ".length()));
                }
            }
        }
        throw new AssertionError("no query identifier for " + sql);
    }

    /** Waits until the waiter has waited past deadlock_timeout (the server logged its wait by then). */
    private static void awaitLockWaitLogged(long waiterPid) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> "true".equals(pg.queryString("postgres",
                "select (now() - query_start > interval '400 ms' and wait_event_type = 'Lock')::text"
                        + " from pg_stat_activity where pid = " + waiterPid)));
    }

    private Connection connect() throws SQLException {
        Connection connection = pg.connect("loginsights");
        connections.add(connection);
        return connection;
    }

    private static long pid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                var rows = statement.executeQuery("select pg_backend_pid()")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static Properties credentials(String user, String password) {
        var properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        return properties;
    }

    /** Sets log_destination, the prefix and auto_explain's format, and waits until the server writes there. */
    static void logTo(String destination, String prefix, String planFormat) {
        pg.execute("postgres", "alter system set log_destination = '" + destination + "'");
        pg.execute("postgres", "alter system set log_line_prefix = '" + prefix + "'");
        pg.execute("postgres", "alter system set auto_explain.log_format = '" + planFormat + "'");
        pg.execute("postgres", "select pg_reload_conf()");
        await().atMost(Duration.ofSeconds(10)).until(() -> pg.queryString("loginsights",
                "select current_setting('log_destination') || current_setting('log_line_prefix')")
                .equals(destination + prefix)
                && pg.queryString("loginsights", "select pg_current_logfile('" + destination + "')") != null);
    }

    /** One source's log_* metrics, collected tick after tick on one session, rows kept per category. */
    static final class Reading {

        private final LogPositions positions;
        private final long budget;
        private final SourceShelf shelf = new SourceShelf();
        private final Map<LogCategory, List<Measurement.Row>> rows = new EnumMap<>(LogCategory.class);
        private final Connection session;

        Reading(LogPositions positions, long budget, Connection session) {
            this.positions = positions;
            this.budget = budget;
            this.session = session;
        }

        /** Collects every category once (one tick); unavailable ones are left out. */
        void tick() throws Exception {
            Instant now = Instant.now();
            for (LogCategory category : LogCategory.values()) {
                try {
                    rows.computeIfAbsent(category, c -> new ArrayList<>()).addAll(collect(category, now));
                } catch (NativeMetric.Unavailable e) {
                    // a category the server does not log as it needs: not part of this reading
                }
            }
        }

        List<Measurement.Row> collect(LogCategory category) throws Exception {
            return collect(category, Instant.now());
        }

        private List<Measurement.Row> collect(LogCategory category, Instant now) throws Exception {
            var target = new NativeTarget("logs", "postgres", pg.majorVersion(), ":0", true,
                    new JdbcSqlReader(session), Duration.ofSeconds(60), now, null, GenericPlans.NONE, shelf,
                    InstanceShelf.NONE, false);
            LogInsightsTail tail = shelf.item(LogInsightsTail.class, () -> new LogInsightsTail("logs", positions, budget));
            return tail.collect(category, target);
        }

        /** Ticks until a row of {@code category} matches, returns it. */
        Measurement.Row until(LogCategory category, Predicate<Measurement.Row> wanted) {
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                tick();
                assertThat(rows.get(category)).as(category.metric()).anyMatch(wanted);
            });
            return rows.get(category).stream().filter(wanted).findFirst().orElseThrow();
        }

        List<Measurement.Row> rows(LogCategory category) {
            return rows.getOrDefault(category, List.of());
        }

        void assertNoValueContains(String literal) {
            rows.forEach((category, list) -> list.forEach(row -> {
                row.values().forEach((column, value) -> assertThat(String.valueOf(value))
                        .as("%s.%s", category.metric(), column).doesNotContain(literal));
                row.tags().forEach((tag, value) -> assertThat(value).as("%s tag %s", category.metric(), tag)
                        .doesNotContain(literal));
            }));
        }
    }
}
