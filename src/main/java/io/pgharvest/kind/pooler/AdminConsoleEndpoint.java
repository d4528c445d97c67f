package io.pgharvest.kind.pooler;

import io.pgharvest.kind.ConnectionTestResult;
import io.pgharvest.kind.ConnectionTests;
import io.pgharvest.kind.Endpoint;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.SourceKind;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * A pooler's admin console (pgbouncer, pgpool): reached with pgharvest's console client, which
 * sends only the startup parameters a console accepts; one command per round trip
 * ({@link AdminConsoleSourceSession}). One instance per kind, registered with its
 * {@link AdminConsoleDialect} in {@link PoolerConfiguration}.
 */
public final class AdminConsoleEndpoint implements Endpoint {

    private final AdminConsoleDialect dialect;
    private final AdminConsoleOpener sessions;

    public AdminConsoleEndpoint(AdminConsoleDialect dialect, AdminConsoleOpener sessions) {
        this.dialect = dialect;
        this.sessions = sessions;
    }

    @Override
    public Set<SourceKind> kinds() {
        return Set.of(dialect.kind());
    }

    @Override
    public SourceSession open(ConnectionString conn, Instant now) throws SQLException {
        return new AdminConsoleSourceSession(sessions.openConsole(conn, dialect), now);
    }

    @Override
    public ConnectionTestResult test(ConnectionString conn, Duration timeout) {
        return ConnectionTests.run(conn, timeout, (connection, limit, started) -> {
            try (AdminConsoleClientSession session = sessions.openConsole(connection, dialect, limit)) {
                return ConnectionTestResult.reachedConsole(session.version(), ConnectionTests.elapsedMillis(started));
            }
        });
    }
}
