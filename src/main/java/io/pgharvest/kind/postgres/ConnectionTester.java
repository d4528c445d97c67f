package io.pgharvest.kind.postgres;

import io.pgharvest.kind.ConnectionTestResult;
import io.pgharvest.kind.ConnectionTests;
import io.pgharvest.model.connection.ConnectionString;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Tries a PostgreSQL server once: opens a session with the engine's {@link SessionOpener} (same
 * rules), asks for its version and recovery state, and disconnects, within the time and secrecy
 * rules of {@link ConnectionTests}. Backs {@link PostgresEndpoint#test}.
 */
public final class ConnectionTester {

    /** Slack over the caller's timeout before the attempt is abandoned. */
    static final Duration GRACE = ConnectionTests.GRACE;
    private static final String PROBE = "select current_setting('server_version_num')::int, "
            + "current_setting('server_version'), pg_is_in_recovery()";

    private final SessionOpener sessions;

    public ConnectionTester(SessionOpener sessions) {
        this.sessions = sessions;
    }

    /**
     * Tests a PostgreSQL server.
     *
     * @param connectTimeout bound for the whole test; connect_timeout in the connection string
     *                       still applies when it is shorter
     */
    public ConnectionTestResult testPostgres(ConnectionString connection, Duration connectTimeout) {
        return ConnectionTests.run(connection, connectTimeout, this::probePostgres);
    }

    private ConnectionTestResult probePostgres(ConnectionString connection, Duration timeout, long started)
            throws SQLException {
        try (Connection session = sessions.open(connection, timeout);
             Statement statement = session.createStatement(); ResultSet row = statement.executeQuery(PROBE)) {
            row.next();
            return ConnectionTestResult.reached(row.getInt(1), row.getString(2), row.getBoolean(3),
                    ConnectionTests.elapsedMillis(started));
        }
    }
}
