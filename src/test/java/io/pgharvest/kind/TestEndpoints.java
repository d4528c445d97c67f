package io.pgharvest.kind;

import io.pgharvest.kind.continuous.ContinuousEndpoint;
import io.pgharvest.kind.pooler.AdminConsoleDialect;
import io.pgharvest.kind.pooler.AdminConsoleEndpoint;
import io.pgharvest.kind.pooler.AdminConsoleOpener;
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
        var consoles = new AdminConsoleOpener(sessions.settings());
        var postgres = new PostgresEndpoint(sessions, new ConnectionTester(sessions));
        return new EndpointRegistry(List.of(postgres, new ContinuousEndpoint(postgres),
                new AdminConsoleEndpoint(AdminConsoleDialect.PGBOUNCER, consoles),
                new AdminConsoleEndpoint(AdminConsoleDialect.PGPOOL, consoles)));
    }
}
