package io.pgharvest.serverlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

/**
 * What the log insights tests make a server log: a bloated table for autovacuum, a lock wait past
 * deadlock_timeout, a deadlock, a wrong password. Owns the sessions it opens ({@link #close}).
 */
public final class LogWorkload implements AutoCloseable {

    static final String PASSWORD_ROLE = "pwuser";
    /** What every string of {@link #writeLiteralCorpus()} starts with: no text downstream may contain it. */
    public static final String CORPUS = "corpus-";
    /** The number {@link #writeLiteralCorpus()} writes as a constant: no text downstream may contain it either. */
    public static final String CORPUS_NUMBER = "8675309123";
    /** The pg_hba.conf that makes {@link #PASSWORD_ROLE} give a password over TCP. */
    static final String HBA = """
            local all all trust
            host all pwuser 127.0.0.1/32 scram-sha-256
            host all all 127.0.0.1/32 trust
            host all all ::1/128 trust
            """;

    private final TestPostgres pg;
    private final String database;
    private final Duration deadlockTimeout;
    private final List<Connection> connections = new ArrayList<>();

    public LogWorkload(TestPostgres pg, String database, Duration deadlockTimeout) {
        this.pg = pg;
        this.database = database;
        this.deadlockTimeout = deadlockTimeout;
    }

    /** Creates the database and {@link #PASSWORD_ROLE}, and installs {@link #HBA}. */
    public static void prepare(TestPostgres pg, String database) {
        pg.createDatabase(database);
        pg.execute(database, "create role " + PASSWORD_ROLE + " login password 'right-password'");
        pg.replaceHbaConf(HBA);
    }

    Connection connect() throws SQLException {
        Connection connection = pg.connect(database);
        connections.add(connection);
        return connection;
    }

    void execute(String sql) throws SQLException {
        execute(connect(), sql);
    }

    /**
     * One event of every category, in tables named with {@code suffix}; {@code literal} is written
     * into the slow statement and the wrong password, for the tests that look for it.
     */
    public CausedEvents causeEveryCategory(String suffix, String literal) throws Exception {
        bloatAndLeaveToAutovacuum("bloat_" + suffix);
        pg.execute(database, "checkpoint");
        Connection worker = connect();
        execute(worker, "set work_mem = '64kB'");
        execute(worker, "select g from generate_series(1, 100000) g order by g desc");
        execute(worker, "select pg_sleep(0.3), '" + literal + "sleeping' as s");
        assertThatThrownBy(() -> execute(worker, "select 1 / 0")).isInstanceOf(SQLException.class);
        failToLogIn(literal + "wrong-password");
        long[] lock = waitOnALock("locks_" + suffix);
        long[] deadlock = provokeADeadlock("deadlocks_" + suffix);
        return new CausedEvents("public.bloat_" + suffix, lock, deadlock);
    }

    /**
     * Literals in every spelling the server may log: strings in single quotes, E'' escapes, dollar
     * quotes and U&'' in failing casts (the error and its STATEMENT), a number in one, an e-mail in
     * a unique violation's DETAIL, a comment, and a prepared statement's parameter in a slow run's
     * DETAIL. Each string starts with {@link #CORPUS}; the number is {@link #CORPUS_NUMBER}.
     */
    public void writeLiteralCorpus() throws SQLException {
        Connection corpus = connect();
        execute(corpus, "create table if not exists corpus (email text unique)");
        execute(corpus, "insert into corpus values ('corpus-mail@example.com') on conflict do nothing");
        for (String sql : List.of("select 'corpus-plain'::int", "select E'corpus-\\'escaped'::int",
                "select $q$corpus-dollar$q$::int", "select U&'corpus-\\0041'::int", "select " + CORPUS_NUMBER + "::int",
                "insert into corpus values ('corpus-mail@example.com')", "select 1 /* corpus-comment */ / 0")) {
            assertThatThrownBy(() -> execute(corpus, sql)).isInstanceOf(SQLException.class);
        }
        try (PreparedStatement statement = corpus.prepareStatement("select pg_sleep(0.3) where ? <> ''")) {
            statement.setString(1, "corpus-parameter");
            statement.execute();
        }
    }

    /** Rows deleted from a table autovacuum visits at once: its run logs 4,000 tuples removed. */
    void bloatAndLeaveToAutovacuum(String table) throws SQLException {
        // Closed at once: up to 14 an idle backend may hold its table statistics back (sent at most
        // every 500 ms, then only with its next transaction), and autovacuum would never see the dead rows.
        try (Connection connection = pg.connect(database)) {
            execute(connection, "create table " + table + " (id int, pad text) with (autovacuum_vacuum_threshold = 0,"
                    + " autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_insert_threshold = 100000000)");
            execute(connection, "insert into " + table + " select g, 'padding' from generate_series(1, 5000) g");
            execute(connection, "delete from " + table + " where id <= 4000");
        }
    }

    /** A login of {@link #PASSWORD_ROLE} with {@code password}, which the server refuses. */
    void failToLogIn(String password) {
        var credentials = new Properties();
        credentials.setProperty("user", PASSWORD_ROLE);
        credentials.setProperty("password", password);
        assertThatThrownBy(() -> DriverManager.getConnection(
                "jdbc:postgresql://" + pg.host() + ":" + pg.port() + "/" + database, credentials))
                .isInstanceOf(SQLException.class);
    }

    /** A waits for B's row lock past deadlock_timeout; returns {holder pid, waiter pid}. */
    long[] waitOnALock(String table) throws Exception {
        Connection holder = connect();
        Connection waiter = connect();
        execute(holder, "create table " + table + " (id int primary key, v int)");
        execute(holder, "insert into " + table + " values (1, 0)");
        long holderPid = pid(holder);
        long waiterPid = pid(waiter);
        holder.setAutoCommit(false);
        execute(holder, "update " + table + " set v = 1 where id = 1");
        CompletableFuture<Void> waiting = inBackground(waiter, "update " + table + " set v = 2 where id = 1");
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
    public long[] provokeADeadlock(String table) throws Exception {
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
        String bStatement = "update " + table + " set v = 8 where id = 1";
        CompletableFuture<Void> bWaits = inBackground(b, bStatement);
        awaitLockWaitLogged(bPid);
        String aStatement = "update " + table + " set v = v * 2 where id = 2";
        long aQueryId = queryId(aStatement);
        long bQueryId = queryId(bStatement);
        assertThat(aQueryId).isNotEqualTo(bQueryId);
        assertThatThrownBy(() -> execute(a, aStatement))
                .isInstanceOf(SQLException.class).extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("40P01");
        a.rollback();
        bWaits.get();
        b.commit();
        return new long[] {aPid, bPid, aQueryId, bQueryId};
    }

    /** The query ID the server computes for {@code sql} (EXPLAIN VERBOSE shows it, without running it). */
    long queryId(String sql) throws SQLException {
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

    private static CompletableFuture<Void> inBackground(Connection connection, String sql) {
        return CompletableFuture.runAsync(() -> {
            try {
                execute(connection, sql);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Waits until the waiter has waited twice deadlock_timeout (the server logged its wait by then). */
    private void awaitLockWaitLogged(long waiterPid) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> "true".equals(
                pg.queryString("postgres", "select (now() - query_start > interval '" + 2 * deadlockTimeout.toMillis()
                        + " ms' and wait_event_type = 'Lock')::text from pg_stat_activity where pid = " + waiterPid)));
    }

    static long pid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                var rows = statement.executeQuery("select pg_backend_pid()")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    @Override
    public void close() throws SQLException {
        for (Connection connection : connections) {
            connection.close();
        }
        connections.clear();
    }
}
