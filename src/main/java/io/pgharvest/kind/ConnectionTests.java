package io.pgharvest.kind;

import io.pgharvest.model.BoundedText;
import io.pgharvest.model.connection.ConnectionString;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * Tries an endpoint once for the admin API's connection test, whatever its kind: each kind's
 * {@link Endpoint#test} gives the probe (open a session with the engine's rules, ask what the
 * endpoint is, disconnect); this class bounds the time and keeps secrets out.
 *
 * <p>Never throws for connection problems, and answers within the given timeout plus
 * {@link #GRACE}: drivers' own timeouts are whole seconds and apply per host and per phase, so
 * the attempt runs on a virtual thread and is interrupted (which closes its socket) when the
 * deadline passes. Error texts have any secret of the connection string removed.
 */
public final class ConnectionTests {

    /** Slack over the caller's timeout before the attempt is abandoned. */
    public static final Duration GRACE = Duration.ofMillis(500);

    private ConnectionTests() {
    }

    /** One attempt at an endpoint: what it said it is, or the exception that stopped it. */
    @FunctionalInterface
    public interface Probe {
        ConnectionTestResult probe(ConnectionString connection, Duration timeout, long startedNanos)
                throws SQLException;
    }

    /**
     * Runs {@code probe} once on a virtual thread, bounded by {@code connectTimeout} plus {@link #GRACE}.
     *
     * @param connectTimeout bound for the whole test; connect_timeout in the connection string
     *                       still applies when the probe honours it and it is shorter
     */
    public static ConnectionTestResult run(ConnectionString connection, Duration connectTimeout, Probe probe) {
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

    /** The exception's message and its cause's (pgjdbc wraps socket errors), secrets removed, bounded and escaped. */
    private static String describe(Throwable failure, ConnectionString connection) {
        String message = failure.getMessage() != null ? failure.getMessage() : failure.getClass().getSimpleName();
        Throwable cause = failure.getCause();
        if (cause != null && cause.getMessage() != null && !message.contains(cause.getMessage())) {
            message += " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")";
        }
        return BoundedText.of(connection.redact(message));
    }

    /** Milliseconds since {@code startedNanos} ({@link System#nanoTime}). */
    public static long elapsedMillis(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }
}
