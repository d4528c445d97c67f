package io.pgharvest.kind.pooler;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Opens every session pgharvest makes to a pooler's admin console, for the engine and for the
 * connection test alike, with pgharvest's console client ({@link ConsoleClient}): the startup
 * parameters a console accepts, TLS as the string asks ({@link ConsoleTls}), and the configured
 * connect timeout.
 */
public final class ConsoleOpener {

    private final SessionSettings settings;

    public ConsoleOpener(SessionSettings settings) {
        this.settings = settings;
    }

    /**
     * Opens a session on an admin console (pgbouncer's, pgpool's) and asks it for its version,
     * each within the configured connect timeout (a shorter {@code connect_timeout} of the string
     * still applies). An endpoint that does not answer the version command is refused: it is not
     * the console {@code dialect} names.
     */
    public ConsoleClientSession openConsole(ConnectionString conn, ConsoleDialect dialect) throws SQLException {
        return openConsole(conn, dialect, settings.connectTimeout());
    }

    /** {@link #openConsole(ConnectionString, ConsoleDialect)} within {@code connectTimeout}. */
    public ConsoleClientSession openConsole(ConnectionString conn, ConsoleDialect dialect, Duration connectTimeout)
            throws SQLException {
        Duration timeout = connectTimeout;
        String configured = conn.parameters().get("connect_timeout");
        if (configured != null && !configured.equals("0")
                && Duration.ofSeconds(Long.parseLong(configured.strip())).compareTo(timeout) < 0) {
            timeout = Duration.ofSeconds(Long.parseLong(configured.strip()));
        }
        ConsoleClient client = ConsoleClient.connect(conn, ConsoleTls.of(conn), timeout);
        return ConsoleClientSession.start(client, dialect, timeout);
    }
}
