package io.pgharvest.kind;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.SourceKind;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * One kind of thing pgharvest collects from (a PostgreSQL server, pgbouncer's console, pgpool):
 * how a reaper opens its session, which then reads the server's facts (and so which SQL key of a
 * metric applies) and runs a tick's queries in one round trip ({@link SourceSession}), and how the
 * admin API tests a connection the same way. The engine never asks which kind it has.
 *
 * <p>Implementations are Spring components (or beans) of this package; {@link EndpointRegistry}
 * finds them by {@link #kinds()}. The rules a source of the kind must satisfy before it is
 * stored (its connection parameters, its selection) are the kind package's
 * {@link io.pgharvest.model.KindRules}, which the kernel finds without Spring, since the store
 * checks every write without the engine. A kind that
 * stands for other sources (Patroni: its members) has no endpoint: its discoverer names the
 * sources that are collected.
 */
public interface Endpoint {

    /** The kinds of source this endpoint serves; each kind has at most one endpoint. */
    Set<SourceKind> kinds();

    /**
     * Opens a session and reads the server's facts, within the configured connect timeout.
     *
     * @throws SQLException when the endpoint cannot be reached, refuses the login, or is not of
     *     the kind the source says
     */
    SourceSession open(ConnectionString conn, Instant now) throws SQLException;

    /** Tries a connection once with the rules of {@link #open}; never throws for connection problems. */
    ConnectionTestResult test(ConnectionString conn, Duration timeout);
}
