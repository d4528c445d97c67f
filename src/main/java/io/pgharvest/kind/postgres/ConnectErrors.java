package io.pgharvest.kind.postgres;

import io.pgharvest.model.connection.ConnectionString;
import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * Turns pgjdbc's connection failures into errors that say what happened. pgjdbc reports a
 * silent server as "The connection attempt failed." and a server that is not PostgreSQL at all
 * as an SSL set-up error (with {@code sslmode=prefer} its first message is the TLS request);
 * operators need to know which. The original text follows in brackets; secrets are removed.
 */
final class ConnectErrors {

    private static final String UNABLE_TO_CONNECT = "08001";
    private static final String PROTOCOL_VIOLATION = "08P01";

    private ConnectErrors() {
    }

    static SQLException timedOut(ConnectionString conn, long elapsedNanos) {
        return new SQLException("login timed out after " + millis(elapsedNanos) + " ms: " + conn.hosts()
                + " did not complete the PostgreSQL login in time (a silent server or network, an overloaded"
                + " server, or not a PostgreSQL server)", UNABLE_TO_CONNECT);
    }

    static SQLException explain(Throwable failure, ConnectionString conn, long elapsedNanos) {
        if (!(failure instanceof SQLException sql)) {
            return new SQLException(conn.redact("cannot connect to " + conn.hosts() + ": " + failure), UNABLE_TO_CONNECT,
                    failure);
        }
        String what = whatHappened(sql, conn, elapsedNanos);
        if (what == null) {
            return redacted(sql, conn);
        }
        return new SQLException(conn.redact(what + " [" + sql.getMessage() + "]"), sql.getSQLState(), sql);
    }

    private static String whatHappened(SQLException e, ConnectionString conn, long elapsedNanos) {
        Throwable cause = e.getCause();
        String message = String.valueOf(e.getMessage());
        if (cause instanceof SocketTimeoutException) {
            return "login timed out after " + millis(elapsedNanos) + " ms: " + conn.hosts()
                    + " accepted the connection but did not answer the PostgreSQL login";
        }
        if (cause instanceof EOFException) {
            return conn.hosts() + " closed the connection during the login: not a PostgreSQL server, or it refuses"
                    + " this client";
        }
        if (cause instanceof ConnectException) {
            return "connection refused by " + conn.hosts() + ": nothing listens there";
        }
        if (message.contains("does not support SSL")) {
            return "TLS not offered: " + conn.hosts() + " does not support SSL, but sslmode requires it";
        }
        if (PROTOCOL_VIOLATION.equals(e.getSQLState()) && message.contains("SSL") && !(cause instanceof SSLException)) {
            return "not a PostgreSQL server: " + conn.hosts() + " answered the TLS request with something else";
        }
        return null;
    }

    private static SQLException redacted(SQLException e, ConnectionString conn) {
        String message = conn.redact(String.valueOf(e.getMessage()));
        if (message.equals(e.getMessage())) {
            return e;
        }
        return new SQLException(message, e.getSQLState(), e);
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
