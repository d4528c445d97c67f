package io.pgharvest.testsupport;

import io.pgharvest.embedded.EmbeddedPostgres;
import io.pgharvest.embedded.PostgresBinaries;
import io.pgharvest.embedded.PostgresServer;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A real PostgreSQL server for tests; every test that touches SQL gets its server here.
 *
 * <p>Most tests use {@link #shared()}, one server per JVM. A test that needs its own settings,
 * or stops and starts the server, owns one from {@link #start(Map)} and closes it in
 * {@code @AfterAll}. The superuser {@value #SUPERUSER} logs in over TCP without a password.
 *
 * <p>Provider, chosen once here by the system property {@value #PROVIDER_PROPERTY}:
 * <ul>
 *   <li>{@code embedded} (default): the zonky binaries artifact on the test classpath, whose
 *       version the Maven property {@code pg.version} chooses, run by our own launcher
 *       ({@link EmbeddedPostgres}) so that it also works as root;</li>
 *   <li>{@code testcontainers}: Docker image {@code postgres:<major of pg.version>};
 *       {@link #stop()} and {@link #start()} throw {@link UnsupportedOperationException}.</li>
 * </ul>
 * See docs/testing.md.
 */
public final class TestPostgres implements AutoCloseable {

    public static final String PROVIDER_PROPERTY = "pgharvest.test.postgres";
    public static final String VERSION_PROPERTY = "pg.version";
    public static final String SUPERUSER = "postgres";
    /** Settings of the {@link #shared()} server. */
    public static final Map<String, String> SHARED_SETTINGS =
            Map.of("shared_preload_libraries", "pg_stat_statements", "max_connections", "400");

    /** Chosen by the launcher: a restart must find the same port, and the superuser must reach it. */
    private static final Set<String> RESERVED_SETTINGS =
            Set.of("port", "listen_addresses", "unix_socket_directories", "hba_file");
    private static final String DEFAULT_VERSION = "18.3.0";
    private static final String DUPLICATE_DATABASE = "42P04";
    private static final String UNIQUE_VIOLATION = "23505";
    private static final Duration REPLAY_POLL = Duration.ofMillis(20);
    private static final ReentrantLock SHARED_LOCK = new ReentrantLock();
    private static TestPostgres shared;

    private final PostgresServer server;
    private final boolean isShared;
    private final int serverVersionNum;

    private TestPostgres(PostgresServer server, boolean isShared) {
        this.server = server;
        this.isShared = isShared;
        this.serverVersionNum = Integer.parseInt(
                queryString("postgres", "select current_setting('server_version_num')"));
    }

    /** The planning role the tests' applications plan as (pgharvest.query-insights.planning-user). */
    public static final String TEST_PLANNER = "pgharvest_test_planner";
    /** Creates {@link #TEST_PLANNER} (trusted over TCP like every role of a test server) once. */
    public static final String CREATE_TEST_PLANNER = "do $$ begin if not exists (select from pg_roles where rolname = '"
            + TEST_PLANNER + "') then create role " + TEST_PLANNER + " login in role pg_read_all_data; end if; end $$";

    /**
     * The server shared by all tests of this JVM, started on first use with
     * {@link #SHARED_SETTINGS} and stopped at JVM exit. Do not change its server settings,
     * stop it or close it; give each test its own database ({@link #createDatabase}).
     */
    public static TestPostgres shared() {
        SHARED_LOCK.lock();
        try {
            if (shared == null) {
                shared = wrap(launch(SHARED_SETTINGS), true);
                Runtime.getRuntime().addShutdownHook(
                        Thread.ofPlatform().name("test-postgres-shared-shutdown").unstarted(shared.server::close));
            }
            return shared;
        } finally {
            SHARED_LOCK.unlock();
        }
    }

    /** A new server owned by the caller, with extra server settings (postgresql.conf names). */
    public static TestPostgres start(Map<String, String> serverSettings) {
        return wrap(launch(serverSettings), false);
    }

    /**
     * A new server of PostgreSQL {@code majorVersion} (14 to 18) owned by the caller, whatever
     * {@value #VERSION_PROPERTY} says. The embedded provider takes the binaries the build copied for
     * the catalog version matrix (pom.xml: {@code pg<major>.version}).
     */
    public static TestPostgres start(int majorVersion, Map<String, String> serverSettings) {
        checkSettings(serverSettings);
        PostgresServer server = switch (provider()) {
            case "embedded" -> EmbeddedPostgres.launch(PostgresBinaries.installMajor(majorVersion), serverSettings);
            default -> ContainerPostgres.launch(majorVersion, serverSettings);
        };
        return wrap(server, false);
    }

    /**
     * Starts a hot standby that streams from this server, owned by the caller. It is made from a
     * cold copy of this server's data directory: this server is stopped for a moment (its open
     * sessions end) and started again on the same port. Returns once the standby accepts
     * read-only connections; {@link #awaitReplayedOn} waits until it has caught up.
     * Needs the embedded provider and a private server.
     */
    public TestPostgres startStandby(String applicationName) {
        requirePrivate("startStandby");
        if (!(server instanceof EmbeddedPostgres embedded)) {
            throw new UnsupportedOperationException("startStandby needs the embedded test PostgreSQL"
                    + " (-D" + PROVIDER_PROPERTY + "=embedded)");
        }
        return wrap(EmbeddedPostgres.launchStandby(embedded, applicationName), false);
    }

    /**
     * Waits until {@code standby} has replayed everything this server wrote so far (its current
     * WAL position), e.g. objects a test just created.
     *
     * @throws IllegalStateException if that takes longer than {@code timeout}
     */
    public void awaitReplayedOn(TestPostgres standby, Duration timeout) {
        String lsn = queryString("postgres", "select pg_current_wal_lsn()");
        String caughtUp = "select coalesce(pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn, false)::text";
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!"true".equals(standby.queryString("postgres", caughtUp))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(standby + " did not replay up to " + lsn + " of " + this
                        + " within " + timeout);
            }
            try {
                Thread.sleep(REPLAY_POLL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for " + standby, e);
            }
        }
    }

    private static TestPostgres wrap(PostgresServer server, boolean isShared) {
        try {
            return new TestPostgres(server, isShared);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private static PostgresServer launch(Map<String, String> serverSettings) {
        checkSettings(serverSettings);
        return switch (provider()) {
            case "embedded" -> EmbeddedPostgres.launch(serverSettings);
            default -> ContainerPostgres.launch(configuredMajorVersion(), serverSettings);
        };
    }

    private static void checkSettings(Map<String, String> serverSettings) {
        for (String name : serverSettings.keySet()) {
            if (RESERVED_SETTINGS.contains(name)) {
                throw new IllegalArgumentException("Server setting '" + name + "' is managed by TestPostgres");
            }
        }
    }

    private static String provider() {
        String provider = System.getProperty(PROVIDER_PROPERTY, "embedded");
        if (!provider.equals("embedded") && !provider.equals("testcontainers")) {
            throw new IllegalArgumentException("Unknown " + PROVIDER_PROPERTY + " '" + provider
                    + "'; use embedded or testcontainers");
        }
        return provider;
    }

    /** Major version asked for by {@value #VERSION_PROPERTY} (Surefire passes the Maven property). */
    public static int configuredMajorVersion() {
        String version = System.getProperty(VERSION_PROPERTY, DEFAULT_VERSION);
        return Integer.parseInt(version.split("\\.", 2)[0]);
    }

    public String host() {
        return server.host();
    }

    public int port() {
        return server.port();
    }

    /** The running server's major version, e.g. 18 (from server_version_num). */
    public int majorVersion() {
        return serverVersionNum / 10000;
    }

    /** server_version_num of the running server, e.g. 180003. */
    public int serverVersionNum() {
        return serverVersionNum;
    }

    /**
     * A pgjdbc URL that logs in as the superuser by itself:
     * {@code jdbc:postgresql://127.0.0.1:PORT/DB?user=postgres}. Append further parameters with {@code &}.
     */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host() + ":" + port() + "/" + encode(database) + "?user=" + SUPERUSER;
    }

    /** A libpq connection URI as operators write it: {@code postgresql://postgres@127.0.0.1:PORT/DB}. */
    public String connStr(String database) {
        return "postgresql://" + SUPERUSER + "@" + host() + ":" + port() + "/" + encode(database);
    }

    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database));
    }

    /** Creates the database unless it exists; safe to call from several tests at once. */
    public void createDatabase(String name) {
        try (Connection connection = connect("postgres");
             Statement statement = connection.createStatement()) {
            statement.execute("create database " + quoteIdentifier(name));
        } catch (SQLException e) {
            if (!DUPLICATE_DATABASE.equals(e.getSQLState()) && !UNIQUE_VIOLATION.equals(e.getSQLState())) {
                throw new IllegalStateException("Cannot create database " + name + " on " + this, e);
            }
        }
    }

    /** Runs SQL (one or more statements) in {@code database}, autocommit. */
    public void execute(String database, String sql) {
        try (Connection connection = connect(database);
             Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("SQL failed in database " + database + " on " + this + ": " + sql, e);
        }
    }

    /** The first column of the first row of a query, as text (null for SQL NULL). */
    public String queryString(String database, String sql) {
        try (Connection connection = connect(database);
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            if (!rows.next()) {
                throw new IllegalStateException("No row from " + sql);
            }
            return rows.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("Query failed in database " + database + " on " + this + ": " + sql, e);
        }
    }

    /**
     * Replaces pg_hba.conf and reloads the configuration, e.g. to require passwords
     * ({@code host all all 127.0.0.1/32 scram-sha-256}). Keep a trust line for {@value #SUPERUSER}
     * or this object can no longer administer the server. Lines the server rejects are an error.
     */
    public void replaceHbaConf(String hbaConf) {
        requirePrivate("replaceHbaConf");
        server.writeServerFile(queryString("postgres", "show hba_file"), hbaConf);
        queryString("postgres", "select pg_reload_conf()");
        List<String> errors = new ArrayList<>();
        try (Connection connection = connect("postgres");
             Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "select line_number, error from pg_hba_file_rules where error is not null")) {
            while (rows.next()) {
                errors.add("line " + rows.getInt(1) + ": " + rows.getString(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot check pg_hba.conf on " + this, e);
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException("pg_hba.conf rejected: " + errors);
        }
    }

    /** Fast shutdown: open sessions are terminated. Data and port are kept for {@link #start()}. */
    public void stop() {
        requirePrivate("stop");
        server.stop();
    }

    /** Starts a stopped server again on the same data directory and the same port. */
    public void start() {
        requirePrivate("start");
        server.start();
    }

    public boolean isRunning() {
        return server.isRunning();
    }

    /** Stops the server and deletes its data. */
    @Override
    public void close() {
        requirePrivate("close");
        server.close();
    }

    @Override
    public String toString() {
        return "test PostgreSQL " + host() + ":" + port();
    }

    private void requirePrivate(String operation) {
        if (isShared) {
            throw new IllegalStateException(operation + " is not allowed on the shared test PostgreSQL, which "
                    + "other tests use; start a private one with TestPostgres.start(settings)");
        }
    }

    private static String quoteIdentifier(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    private static String encode(String database) {
        return URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
