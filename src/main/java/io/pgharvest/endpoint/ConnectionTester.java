package io.pgharvest.endpoint;

import io.pgharvest.model.connection.ConnectionString;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.stereotype.Component;

/**
 * Tries an endpoint once: opens a session with the engine's {@link SessionOpener} (same rules),
 * asks a PostgreSQL server for its version and recovery state ({@link #testPostgres}), an admin
 * console for the version it reports ({@link #testConsole}), and disconnects. Each kind of
 * endpoint the engine knows picks its test; this class bounds the time and keeps secrets out.
 * Backs the source connection test of the admin API.
 *
 * <p>Never throws for connection problems, and answers within the given timeout plus
 * {@link #GRACE}: pgjdbc's own timeouts are whole seconds and apply per host and per phase, so
 * the attempt runs on a virtual thread and is interrupted (which closes its socket) when the
 * deadline passes. Error texts have any secret of the connection string removed.
 */
@Component
public class ConnectionTester {

    /** Slack over the caller's timeout before the attempt is abandoned. */
    static final Duration GRACE = Duration.ofMillis(500);
    private static final String PROBE = "select current_setting('server_version_num')::int, "
            + "current_setting('server_version'), pg_is_in_recovery()";

    private final SessionOpener sessions;

    public ConnectionTester(SessionOpener sessions) {
        this.sessions = sessions;
    }

    /** One attempt at an endpoint: what it said it is, or the exception that stopped it. */
    @FunctionalInterface
    private interface Probe {
        ConnectionTestResult probe(ConnectionString connection, Duration timeout, long startedNanos)
                throws SQLException;
    }

    /**
     * Tests a PostgreSQL server.
     *
     * @param connectTimeout bound for the whole test; connect_timeout in the connection string
     *                       still applies when it is shorter
     */
    public ConnectionTestResult testPostgres(ConnectionString connection, Duration connectTimeout) {
        return test(connection, connectTimeout, this::probePostgres);
    }

    /** Tests an admin console of {@code dialect} (pgbouncer, pgpool) within {@code connectTimeout}. */
    public ConnectionTestResult testConsole(ConnectionString connection, ConsoleDialect dialect,
            Duration connectTimeout) {
        return test(connection, connectTimeout, (conn, timeout, started) -> {
            try (ConsoleSession session = sessions.openConsole(conn, dialect, timeout)) {
                return ConnectionTestResult.reachedConsole(session.version(), elapsedMillis(started));
            }
        });
    }

    private ConnectionTestResult test(ConnectionString connection, Duration connectTimeout, Probe probe) {
        long started = System.nanoTime();
        FutureTask<ConnectionTestResult> attempt = new FutureTask<>(() -> {
            try {
                return probe.probe(connection, connectTimeout, started);
            } catch (SQLException e) {
                return ConnectionTestResult.failed(elapsedMillis(started), describe(e, connection), e.getSQLState());
            }
        });
        Thread.ofVirtual().name("connection-test").start(attempt);
        try {
            return attempt.get(connectTimeout.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            attempt.cancel(true);
            return ConnectionTestResult.failed(elapsedMillis(started),
                    "no answer from " + connection.hosts() + " within " + connectTimeout.toMillis() + " ms", null);
        } catch (ExecutionException e) {
            return ConnectionTestResult.failed(elapsedMillis(started), describe(e.getCause(), connection), null);
        } catch (InterruptedException e) {
            attempt.cancel(true);
            Thread.currentThread().interrupt();
            return ConnectionTestResult.failed(elapsedMillis(started), "connection test interrupted", null);
        }
    }

    private ConnectionTestResult probePostgres(ConnectionString connection, Duration timeout, long started)
            throws SQLException {
        try (Connection session = sessions.open(connection, timeout);
             Statement statement = session.createStatement(); ResultSet row = statement.executeQuery(PROBE)) {
            row.next();
            return ConnectionTestResult.reached(row.getInt(1), row.getString(2), row.getBoolean(3),
                    elapsedMillis(started));
        }
    }

    /** The exception's message and its cause's (pgjdbc wraps socket errors), secrets removed. */
    private static String describe(Throwable failure, ConnectionString connection) {
        String message = failure.getMessage() != null ? failure.getMessage() : failure.getClass().getSimpleName();
        Throwable cause = failure.getCause();
        if (cause != null && cause.getMessage() != null && !message.contains(cause.getMessage())) {
            message += " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")";
        }
        return connection.redact(message);
    }

    private static long elapsedMillis(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }
}
