package io.pgharvest.kind.postgres;

import io.pgharvest.kind.ConnectionTestResult;
import io.pgharvest.kind.Endpoint;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.SourceKind;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.springframework.stereotype.Component;

/**
 * A PostgreSQL server: a pgjdbc session with the engine's rules ({@link SessionOpener}), facts read
 * from the server, SQL picked by its major version, a tick's queries in one pipelined round trip
 * ({@link PostgresSession}). Continuous discovery's configured source is served by this endpoint
 * too, through its own ({@code kind.continuous.ContinuousEndpoint}).
 */
@Component
public final class PostgresEndpoint implements Endpoint {

    private final SessionOpener sessions;
    private final ConnectionTester tester;

    public PostgresEndpoint(SessionOpener sessions, ConnectionTester tester) {
        this.sessions = sessions;
        this.tester = tester;
    }

    @Override
    public Set<SourceKind> kinds() {
        return Set.of(PostgresKindRules.kind());
    }

    @Override
    public SourceSession open(ConnectionString conn, Instant now) throws SQLException {
        return PostgresSession.open(sessions, conn, now);
    }

    @Override
    public ConnectionTestResult test(ConnectionString conn, Duration timeout) {
        return tester.testPostgres(conn, timeout);
    }
}
