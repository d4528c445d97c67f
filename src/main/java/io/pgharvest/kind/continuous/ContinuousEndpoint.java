package io.pgharvest.kind.continuous;

import io.pgharvest.kind.ConnectionTestResult;
import io.pgharvest.kind.Endpoint;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.kind.postgres.PostgresEndpoint;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.connection.ConnectionString;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.springframework.stereotype.Component;

/**
 * The configured source of continuous discovery is a PostgreSQL server: its session and its
 * connection test are PostgreSQL's, reaching the instance whose databases it lists.
 */
@Component
public final class ContinuousEndpoint implements Endpoint {

    private final PostgresEndpoint postgres;

    public ContinuousEndpoint(PostgresEndpoint postgres) {
        this.postgres = postgres;
    }

    @Override
    public Set<SourceKind> kinds() {
        return Set.of(ContinuousKindRules.kind());
    }

    @Override
    public SourceSession open(ConnectionString conn, Instant now) throws SQLException {
        return postgres.open(conn, now);
    }

    @Override
    public ConnectionTestResult test(ConnectionString conn, Duration timeout) {
        return postgres.test(conn, timeout);
    }
}
