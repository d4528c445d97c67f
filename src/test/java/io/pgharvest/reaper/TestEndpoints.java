package io.pgharvest.reaper;

import io.pgharvest.endpoint.ConnectionTester;
import io.pgharvest.endpoint.ConsoleDialect;
import io.pgharvest.endpoint.SessionOpener;
import io.pgharvest.model.SourceKind;
import java.util.List;

/** The engine's endpoints as the application registers them, for engines built by tests. */
public final class TestEndpoints {

    private TestEndpoints() {
    }

    /** PostgreSQL, pgbouncer and pgpool endpoints opening sessions with {@code sessions}. */
    public static EndpointRegistry of(SessionOpener sessions) {
        var tester = new ConnectionTester(sessions);
        return new EndpointRegistry(List.of(new PostgresEndpoint(sessions, tester),
                new ConsoleEndpoint(SourceKind.PGBOUNCER, ConsoleDialect.PGBOUNCER, sessions, tester),
                new ConsoleEndpoint(SourceKind.PGPOOL, ConsoleDialect.PGPOOL, sessions, tester)));
    }
}
