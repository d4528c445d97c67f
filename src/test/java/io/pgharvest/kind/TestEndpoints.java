package io.pgharvest.kind;

import io.pgharvest.kind.continuous.ContinuousEndpoint;
import io.pgharvest.kind.pooler.ConsoleDialect;
import io.pgharvest.kind.pooler.ConsoleEndpoint;
import io.pgharvest.kind.pooler.ConsoleOpener;
import io.pgharvest.kind.postgres.ConnectionTester;
import io.pgharvest.kind.postgres.PostgresEndpoint;
import io.pgharvest.kind.postgres.SessionOpener;
import java.util.List;

/** The engine's endpoints as the application registers them, for engines built by tests. */
public final class TestEndpoints {

    private TestEndpoints() {
    }

    /** PostgreSQL (continuous discovery's too), pgbouncer and pgpool endpoints opening sessions with {@code sessions}. */
    public static EndpointRegistry of(SessionOpener sessions) {
        var consoles = new ConsoleOpener(sessions.settings());
        var postgres = new PostgresEndpoint(sessions, new ConnectionTester(sessions));
        return new EndpointRegistry(List.of(postgres, new ContinuousEndpoint(postgres),
                new ConsoleEndpoint(ConsoleDialect.PGBOUNCER, consoles),
                new ConsoleEndpoint(ConsoleDialect.PGPOOL, consoles)));
    }
}
