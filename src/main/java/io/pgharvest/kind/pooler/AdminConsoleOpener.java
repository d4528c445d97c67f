package io.pgharvest.kind.pooler;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Opens every session pgharvest makes to a pooler's admin console, for the engine and for the
 * connection test alike, with pgharvest's console client ({@link AdminConsoleClient}): the startup
 * parameters a console accepts, TLS as the string asks ({@link AdminConsoleTls}), and the configured
 * connect timeout.
 */
public final class AdminConsoleOpener {

    private final SessionSettings settings;

    public AdminConsoleOpener(SessionSettings settings) {
        this.settings = settings;
    }

    /**
     * Opens a session on an admin console (pgbouncer's, pgpool's) and asks it for its version,
     * each within the configured connect timeout (a shorter {@code connect_timeout} of the string
     * still applies). An endpoint that does not answer the version command is refused: it is not
     * the console {@code dialect} names.
     */
    public AdminConsoleClientSession openConsole(ConnectionString conn, AdminConsoleDialect dialect) throws SQLException {
        return openConsole(conn, dialect, settings.connectTimeout());
    }

    /** {@link #openConsole(ConnectionString, AdminConsoleDialect)} within {@code connectTimeout}. */
    public AdminConsoleClientSession openConsole(ConnectionString conn, AdminConsoleDialect dialect, Duration connectTimeout)
            throws SQLException {
        Duration timeout = conn.connectTimeoutWithin(connectTimeout);
        AdminConsoleClient client = AdminConsoleClient.connect(conn, AdminConsoleTls.of(conn), timeout);
        return AdminConsoleClientSession.start(client, dialect, timeout);
    }
}
