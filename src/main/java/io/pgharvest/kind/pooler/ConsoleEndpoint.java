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
 * ({@link ConsoleSourceSession}). One instance per kind, registered with its
 * {@link ConsoleDialect} in {@link PoolerConfiguration}.
 */
public final class ConsoleEndpoint implements Endpoint {

    private final ConsoleDialect dialect;
    private final ConsoleOpener sessions;

    public ConsoleEndpoint(ConsoleDialect dialect, ConsoleOpener sessions) {
        this.dialect = dialect;
        this.sessions = sessions;
    }

    @Override
    public Set<SourceKind> kinds() {
        return Set.of(dialect.kind());
    }

    @Override
    public SourceSession open(ConnectionString conn, Instant now) throws SQLException {
        return new ConsoleSourceSession(sessions.openConsole(conn, dialect), now);
    }

    @Override
    public ConnectionTestResult test(ConnectionString conn, Duration timeout) {
        return ConnectionTests.run(conn, timeout, (connection, limit, started) -> {
            try (ConsoleClientSession session = sessions.openConsole(connection, dialect, limit)) {
                return ConnectionTestResult.reachedConsole(session.version(), ConnectionTests.elapsedMillis(started));
            }
        });
    }
}
