package io.pgharvest.reaper;

import io.pgharvest.endpoint.ConnectionTestResult;
import io.pgharvest.endpoint.ConnectionTester;
import io.pgharvest.endpoint.ConsoleDialect;
import io.pgharvest.endpoint.SessionOpener;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.connection.ConnectionString;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * A pooler's admin console (pgbouncer, pgpool): reached with pgharvest's console client, which
 * sends only the startup parameters a console accepts; one command per round trip
 * ({@link ConsoleSourceSession}). One instance per kind, registered with its
 * {@link ConsoleDialect} in {@link ReaperConfiguration}.
 */
final class ConsoleEndpoint implements Endpoint {

    private final SourceKind kind;
    private final ConsoleDialect dialect;
    private final SessionOpener sessions;
    private final ConnectionTester tester;

    ConsoleEndpoint(SourceKind kind, ConsoleDialect dialect, SessionOpener sessions, ConnectionTester tester) {
        this.kind = kind;
        this.dialect = dialect;
        this.sessions = sessions;
        this.tester = tester;
    }

    @Override
    public Set<SourceKind> kinds() {
        return Set.of(kind);
    }

    @Override
    public SourceSession open(ConnectionString conn, Instant now) throws SQLException {
        return new ConsoleSourceSession(sessions.openConsole(conn, dialect), now);
    }

    @Override
    public ConnectionTestResult test(ConnectionString conn, Duration timeout) {
        return tester.testConsole(conn, dialect, timeout);
    }
}
