package io.pgharvest.kind.postgres;

import io.pgharvest.kind.SessionRefusedException;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.support.wire.ResultBytesBound;
import io.pgharvest.support.wire.SessionSockets;
import io.pgharvest.support.wire.SessionTls;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;

/**
 * Opens every session pgharvest makes to a monitored endpoint: the engine's sessions and the
 * admin API's connection test follow the same rules, so a test that succeeds means collection
 * can connect the same way.
 *
 * <p>Sessions are plain pgjdbc connections, never pooled: a reaper runs its ticks one after
 * another and needs exactly one, so no pool housekeeping thread exists per source.
 */
public final class SessionOpener {

    /**
     * The URL every session is opened with: the server and database travel as properties
     * ({@link #properties}), so nothing an operator wrote can add URL parameters.
     */
    private static final String URL_WITHOUT_TARGET = "jdbc:postgresql://";

    /**
     * The only schemas a monitoring session searches: the system catalog first, the session's
     * temporary schema (which a SELECT cannot fill) last. Metrics name every other schema.
     */
    public static final String PINNED_SEARCH_PATH = "pg_catalog,pg_temp";

    /**
     * Logins to one server in progress at once. Without a bound, 300 databases of one cluster
     * starting together made it fork 300 backends at once and logins timed out after 5 s (each
     * then retried, adding to the storm); eight at a time open them all in a few seconds. Per
     * server, so that servers that do not answer never hold back the others.
     */
    static final int LOGINS_PER_SERVER = 8;

    private final Driver driver = new org.postgresql.Driver();
    private final SessionSettings settings;
    private final Map<ConnectionString.HostPort, Semaphore> loginsInProgress = new ConcurrentHashMap<>();
    /** Notices dropped on every session this opener opened ({@link ResultBytesBound#NOTICES_KEPT}). */
    private final LongAdder droppedNotices = new LongAdder();

    public SessionOpener(SessionSettings settings) {
        this.settings = settings;
    }

    public SessionSettings settings() {
        return settings;
    }

    /**
     * Connects with the configured connect timeout. The socket timeout is the connect timeout
     * too, until the caller sets a longer network timeout for queries.
     */
    public Connection open(ConnectionString conn) throws SQLException {
        return open(conn, settings.connectTimeout());
    }

    /**
     * Connects within {@code connectTimeout} in total (a shorter {@code connect_timeout} of the
     * string still applies), TLS negotiation and login included: pgjdbc bounds each phase and
     * each attempt on its own (with {@code sslmode=prefer} a silent server costs two attempts),
     * so the attempt runs on a virtual thread that is interrupted, closing its socket, when the
     * deadline passes. Errors say what happened (login timed out, not a PostgreSQL server,
     * connection closed during login, TLS not offered), with pgjdbc's own text after it.
     */
    public Connection open(ConnectionString conn, Duration connectTimeout) throws SQLException {
        return openWithSocket(conn, connectTimeout).value();
    }

    /**
     * As {@link #open(ConnectionString)}, with the socket the session reads the network through
     * (null if pgjdbc did not make it with {@link SessionSockets}): a reaper's session looks at it
     * between ticks ({@link ArrivedBytes}).
     */
    SessionSockets.Captured<Connection> openWithSocket(ConnectionString conn) throws SQLException {
        return openWithSocket(conn, settings.connectTimeout());
    }

    private SessionSockets.Captured<Connection> openWithSocket(ConnectionString conn, Duration connectTimeout)
            throws SQLException {
        Semaphore logins = loginsInProgress.computeIfAbsent(conn.hosts().getFirst(),
                server -> new Semaphore(LOGINS_PER_SERVER, true));
        try {
            logins.acquire(); // waiting for a turn is not part of the connect timeout
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("connecting to " + conn.hosts() + " was interrupted", "08001", e);
        }
        SessionSockets.Captured<Connection> opened;
        try {
            opened = openNow(conn, connectTimeout);
        } finally {
            logins.release();
        }
        // At a message boundary: the login read up to its ReadyForQuery and nothing was sent since.
        // Every session (reaper, discovery, connection test) has its notices bounded from here on.
        opened.bound().follow(droppedNotices);
        return opened;
    }

    /** Notices dropped so far on all the sessions this opener opened, past each round trip's allowance. */
    public long droppedNotices() {
        return droppedNotices.sum();
    }

    private SessionSockets.Captured<Connection> openNow(ConnectionString conn, Duration connectTimeout)
            throws SQLException {
        Properties props = properties(conn, connectTimeout);
        var attempt = new FutureTask<SessionSockets.Captured<Connection>>(
                () -> SessionSockets.capture(() -> connect(conn, props)));
        Thread.ofVirtual().name("connect-" + conn.hosts().getFirst()).start(attempt);
        long started = System.nanoTime();
        try {
            return attempt.get(connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return abandon(attempt, conn, started);
        } catch (ExecutionException e) {
            throw ConnectErrors.explain(e.getCause(), conn, System.nanoTime() - started);
        } catch (InterruptedException e) {
            attempt.cancel(true);
            Thread.currentThread().interrupt();
            throw new SQLException("connecting to " + conn.hosts() + " was interrupted", "08001", e);
        }
    }

    private Connection connect(ConnectionString conn, Properties props) throws SQLException {
        Connection connection = driver.connect(URL_WITHOUT_TARGET, props);
        if (connection == null) {
            throw new SQLException("pgjdbc does not accept the URL of " + conn.hosts(), "08001");
        }
        refuseSuperuser(connection, conn);
        return connection;
    }

    /**
     * The server reports {@code is_superuser} in the login's parameter status, so this costs no
     * round trip. A superuser login can take back any role or setting from inside a SELECT
     * ({@code set_config('role', ...)} however spelled), read server files and signal every
     * backend: pgharvest refuses it unless the operator opted out.
     */
    private void refuseSuperuser(Connection connection, ConnectionString conn) throws SQLException {
        String superuser = connection.unwrap(PGConnection.class).getParameterStatus("is_superuser");
        if (!settings.allowSuperuser() && "on".equals(superuser)) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // refused either way
            }
            throw new SessionRefusedException("refused: user " + conn.user() + " is a superuser, and pgharvest does"
                    + " not run metrics as one; connect as a role with pg_monitor only (docs/security.md) or set"
                    + " pgharvest.security.allow-superuser-sources=true (unsafe)");
        }
    }

    /** The deadline passed: stop the attempt; one that succeeded in the meantime is used after all. */
    private static SessionSockets.Captured<Connection> abandon(FutureTask<SessionSockets.Captured<Connection>> attempt,
            ConnectionString conn, long started) throws SQLException {
        if (!attempt.cancel(true)) {
            try {
                return attempt.get();
            } catch (ExecutionException | InterruptedException | java.util.concurrent.CancellationException ignored) {
                // fall through to the timeout error
            }
        }
        throw ConnectErrors.timedOut(conn, System.nanoTime() - started);
    }

    /**
     * The pgjdbc properties of a session to the PostgreSQL server {@code conn} names: its hosts,
     * ports and database as pgjdbc's own properties (never pasted into a URL), its parameters'
     * pgjdbc equivalents, then the settings pgharvest relies on.
     */
    Properties properties(ConnectionString conn, Duration connectTimeout) {
        Properties props = conn.jdbcProperties();
        props.setProperty(PGProperty.PG_HOST.getName(), conn.hosts().stream()
                .map(h -> h.host().indexOf(':') >= 0 ? "[" + h.host() + "]" : h.host()).collect(Collectors.joining(",")));
        props.setProperty(PGProperty.PG_PORT.getName(), conn.hosts().stream()
                .map(h -> Integer.toString(h.port())).collect(Collectors.joining(",")));
        props.setProperty(PGProperty.PG_DBNAME.getName(), conn.database());
        props.setProperty("ApplicationName", SessionSettings.APPLICATION_NAME);
        // pgjdbc counts whole seconds: the bound rounds up, the string's own value is whole already.
        long seconds = Math.max(1, conn.connectTimeoutWithin(connectTimeout).plusNanos(999_999_999).getSeconds());
        props.setProperty("connectTimeout", Long.toString(seconds));
        // Not loginTimeout: pgjdbc enforces it by running each attempt on a new platform thread
        // (abandoned, still blocked, when it expires). A server that accepts TCP but never
        // answers the login is bounded by the socket timeout instead, set to the connect
        // timeout until the session is open.
        props.remove("loginTimeout");
        props.setProperty("socketTimeout", props.getProperty("connectTimeout"));
        props.setProperty("tcpKeepAlive", "true");
        // Sockets whose waiting bytes a reaper can count between ticks without reading (SessionSockets).
        props.setProperty(PGProperty.SOCKET_FACTORY.getName(), SessionSockets.class.getName());
        // pgjdbc's own TLS (LibPQFactory) whose socket reads through the bound on a result's bytes
        // (SessionTls); connection strings cannot name another factory.
        props.setProperty(PGProperty.SSL_FACTORY.getName(), SessionTls.class.getName());
        // QueryPipeline keeps its own statements; pgjdbc's per-connection cache of closed ones
        // would only hold on to memory for statements evicted on purpose.
        props.setProperty("preparedStatementCacheQueries", "0");
        // Server-side prepared from the first execution, not pgjdbc's fifth: a tick's pipeline
        // repeats every interval, and at 30 s the fifth run is 2.5 minutes away, all of them
        // parsed and planned by the source again (docs/engine.md, "One round trip").
        props.setProperty("prepareThreshold", "1");
        // Travels in the startup packet (no extra round trip for SETs), after the operator's own
        // options, so that these win. A setting from the startup packet also wins over the
        // monitored server's ALTER DATABASE / ALTER ROLE ... SET, which its database owner
        // controls: search_path is pinned so that no name a metric leaves unqualified resolves to
        // an object the owner created (a public.pg_stat_database view over a function of theirs).
        String options = "-c default_transaction_read_only=on"
                + " -c search_path=" + PINNED_SEARCH_PATH
                + " -c lock_timeout=" + settings.lockTimeout().toMillis()
                + " -c statement_timeout=" + settings.defaultStatementTimeout().toMillis();
        String existing = props.getProperty("options");
        props.setProperty("options", existing == null || existing.isBlank() ? options : existing + " " + options);
        props.setProperty("assumeMinServerVersion", "10");
        // Extended protocol for every statement: the server then refuses a Parse message holding
        // more than one command, so a metric is one statement by PostgreSQL's own reading.
        props.setProperty(PGProperty.PREFER_QUERY_MODE.getName(), "extended");
        return props;
    }
}
