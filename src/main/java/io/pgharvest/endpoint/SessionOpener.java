package io.pgharvest.endpoint;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.SourceKind;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens every session pgharvest makes to a monitored endpoint: the engine's sessions and the
 * admin API's connection test follow the same rules, so a test that succeeds means collection
 * can connect the same way.
 *
 * <p>Sessions are plain pgjdbc connections, never pooled: a reaper runs its ticks one after
 * another and needs exactly one, so no pool housekeeping thread exists per source.
 */
public final class SessionOpener {

    private final Driver driver = new org.postgresql.Driver();
    private final SessionSettings settings;

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
    public Connection open(ConnectionString conn, SourceKind kind) throws SQLException {
        return open(conn, kind, settings.connectTimeout());
    }

    /**
     * Connects within {@code connectTimeout} in total (a shorter {@code connect_timeout} of the
     * string still applies), TLS negotiation and login included: pgjdbc bounds each phase and
     * each attempt on its own (with {@code sslmode=prefer} a silent server costs two attempts),
     * so the attempt runs on a virtual thread that is interrupted, closing its socket, when the
     * deadline passes. Errors say what happened (login timed out, not a PostgreSQL server,
     * connection closed during login, TLS not offered), with pgjdbc's own text after it.
     */
    public Connection open(ConnectionString conn, SourceKind kind, Duration connectTimeout) throws SQLException {
        Properties props = properties(conn, kind, connectTimeout);
        var attempt = new FutureTask<Connection>(() -> connect(conn, props));
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
        Connection connection = driver.connect(conn.jdbcUrl(), props);
        if (connection == null) {
            throw new SQLException("pgjdbc does not accept the URL of " + conn.hosts(), "08001");
        }
        return connection;
    }

    /**
     * Opens a session on an endpoint that is not a PostgreSQL server (pgbouncer's console,
     * pgpool) and asks it for its version, each within the configured connect timeout (a
     * shorter {@code connect_timeout} of the string still applies). An endpoint that does not
     * answer the version command is refused: it is not of the source's kind.
     *
     * @throws IllegalArgumentException for a PostgreSQL kind (use {@link #open})
     */
    public EndpointSession openEndpoint(ConnectionString conn, SourceKind kind) throws SQLException {
        return openEndpoint(conn, kind, settings.connectTimeout());
    }

    /** {@link #openEndpoint(ConnectionString, SourceKind)} within {@code connectTimeout}. */
    public EndpointSession openEndpoint(ConnectionString conn, SourceKind kind, Duration connectTimeout)
            throws SQLException {
        EndpointProtocol protocol = EndpointProtocol.of(kind);
        if (protocol.isPostgres()) {
            throw new IllegalArgumentException("sources of kind " + kind.label() + " are PostgreSQL servers");
        }
        Duration timeout = connectTimeout;
        String configured = conn.parameters().get("connect_timeout");
        if (configured != null && !configured.equals("0")
                && Duration.ofSeconds(Long.parseLong(configured.strip())).compareTo(timeout) < 0) {
            timeout = Duration.ofSeconds(Long.parseLong(configured.strip()));
        }
        ConsoleClient client = ConsoleClient.connect(conn, ConsoleTls.of(conn), timeout);
        return ConsoleSession.start(client, protocol, timeout);
    }

    /** The deadline passed: stop the attempt; one that succeeded in the meantime is used after all. */
    private static Connection abandon(FutureTask<Connection> attempt, ConnectionString conn, long started)
            throws SQLException {
        if (!attempt.cancel(true)) {
            try {
                return attempt.get();
            } catch (ExecutionException | InterruptedException | java.util.concurrent.CancellationException ignored) {
                // fall through to the timeout error
            }
        }
        throw ConnectErrors.timedOut(conn, System.nanoTime() - started);
    }

    /** The pgjdbc properties of a session to {@code conn}, which is an endpoint of {@code kind}. */
    Properties properties(ConnectionString conn, SourceKind kind, Duration connectTimeout) {
        Properties props = conn.jdbcProperties();
        props.setProperty("ApplicationName", SessionSettings.APPLICATION_NAME);
        long seconds = Math.max(1, connectTimeout.plusNanos(999_999_999).getSeconds());
        String configured = props.getProperty("connectTimeout");
        boolean configuredIsShorter = configured != null && !configured.equals("0")
                && Long.parseLong(configured) < seconds;
        if (!configuredIsShorter) {
            props.setProperty("connectTimeout", Long.toString(seconds));
        }
        // Not loginTimeout: pgjdbc enforces it by running each attempt on a new platform thread
        // (abandoned, still blocked, when it expires). A server that accepts TCP but never
        // answers the login is bounded by the socket timeout instead, set to the connect
        // timeout until the session is open.
        props.remove("loginTimeout");
        props.setProperty("socketTimeout", props.getProperty("connectTimeout"));
        props.setProperty("tcpKeepAlive", "true");
        // QueryPipeline keeps its own statements; pgjdbc's per-connection cache of closed ones
        // would only hold on to memory for statements evicted on purpose.
        props.setProperty("preparedStatementCacheQueries", "0");
        EndpointProtocol.of(kind).configure(props, settings);
        return props;
    }
}
