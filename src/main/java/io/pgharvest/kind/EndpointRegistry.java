package io.pgharvest.kind;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.SourceKind;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The {@link Endpoint}s by the kind of source they serve: the one place that goes from a
 * {@link SourceKind} to behaviour. Immutable once built.
 */
public final class EndpointRegistry {

    private final Map<SourceKind, Endpoint> byKind = new HashMap<>();

    /** @throws IllegalArgumentException when two endpoints claim one kind */
    EndpointRegistry(Collection<? extends Endpoint> endpoints) {
        for (Endpoint endpoint : endpoints) {
            for (SourceKind kind : endpoint.kinds()) {
                Endpoint other = byKind.put(kind, endpoint);
                if (other != null) {
                    throw new IllegalArgumentException("two endpoints for sources of kind " + kind.label() + ": "
                            + other.getClass().getName() + " and " + endpoint.getClass().getName());
                }
            }
        }
    }

    /** Whether sources of {@code kind} have a session of their own (a Patroni source has none: its members do). */
    public boolean hasSession(SourceKind kind) {
        return byKind.containsKey(kind);
    }

    /**
     * Tries a connection to an endpoint of {@code kind} once.
     *
     * @throws IllegalArgumentException for a kind without a session of its own ({@link #hasSession})
     */
    public ConnectionTestResult test(SourceKind kind, ConnectionString conn, Duration timeout) {
        return endpoint(kind).orElseThrow(() -> new IllegalArgumentException(
                "sources of kind " + kind.label() + " have no connection of their own")).test(conn, timeout);
    }

    /** Opens a reaper's session on a source of {@code kind}. */
    public SourceSession open(SourceKind kind, ConnectionString conn, Instant now) throws SQLException {
        Optional<Endpoint> endpoint = endpoint(kind);
        if (endpoint.isEmpty()) {
            throw new SQLException("sources of kind " + kind.label() + " are not collected themselves", "0A000");
        }
        return endpoint.get().open(conn, now);
    }

    private Optional<Endpoint> endpoint(SourceKind kind) {
        return Optional.ofNullable(byKind.get(kind));
    }
}
