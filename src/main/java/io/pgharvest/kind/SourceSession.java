package io.pgharvest.kind;

import io.pgharvest.nativemetric.GenericPlans;
import io.pgharvest.nativemetric.PlanningLogin;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A reaper's session on its source, whatever the kind of endpoint behind it: opened by the
 * kind's {@link Endpoint}, it knows the server's facts (which SQL key applies), sends a tick's
 * queries in one round trip, and says what an error means for it. The reaper, the tick and the
 * native metrics have one code path for every kind.
 *
 * <p>Not thread-safe: owned by one reaper's thread, closed by it.
 */
public interface SourceSession extends AutoCloseable {

    /** What the server said about itself when last asked. */
    ServerFacts facts();

    /** Asks again (version, recovery state); the new facts, also from {@link #facts()} afterwards. */
    ServerFacts refreshFacts(Instant now) throws SQLException;

    /** What the session's role could do beyond reading (read once when the session opened). */
    RolePrivileges privileges();

    /** Why {@code query} would be refused without being sent, or null when it may be sent. */
    NotReadingException refusal(MetricQuery query);

    /**
     * Runs {@code queries} in one round trip and returns their rows in the same order.
     *
     * @throws SQLException if any of them failed; no result is returned then
     */
    List<FetchedRows> run(List<MetricQuery> queries) throws SQLException;

    /**
     * Runs {@code queries} in one round trip like {@link #run}, and keeps what the server answered
     * before a failure: the rows of the queries that completed, and which query failed, when the
     * session can tell. The default (a kind that cannot tell) returns no rows on a failure. Never
     * throws for a failing query or a lost session: the failure is in the answer.
     */
    default RoundTrip runKeeping(List<MetricQuery> queries) {
        try {
            return RoundTrip.whole(run(queries));
        } catch (SQLException e) {
            return RoundTrip.nothing(queries.size(), e);
        }
    }

    /** Runs one query alone, with its time limit (a round trip of its own). */
    AloneRun runAlone(MetricQuery query) throws SQLException;

    /**
     * Runs a native metric's reading statement with bind parameters (a PostgreSQL server binds them);
     * an endpoint that is not a PostgreSQL server refuses.
     */
    List<Map<String, Object>> read(String sql, Object... parameters) throws SQLException;

    /**
     * As {@link #read(String, Object...)}, under {@code timeout} instead of the session's default
     * statement timeout (a native metric's own limit, enforced as for SQL metrics).
     */
    List<Map<String, Object>> read(Duration timeout, String sql, Object... parameters) throws SQLException;

    /**
     * A session of its own on this session's server and database, logged in as the planning role
     * with this session's other connection parameters, for generic plans
     * ({@link io.pgharvest.nativemetric.GenericPlans#open}). An endpoint that is not a PostgreSQL
     * server refuses.
     */
    default GenericPlans.Planning openPlanning(PlanningLogin login) throws SQLException {
        throw new SQLException("generic plans need a PostgreSQL server", "0A000");
    }

    /** What {@code error}, thrown by this session, says about it. */
    Failure classify(SQLException error);

    /**
     * The query of {@code sent} that {@code failure} (of their round trip) points at, when the
     * error names exactly one; empty when only a search can tell (the default).
     */
    default Optional<MetricQuery> culprit(SQLException failure, List<MetricQuery> sent) {
        return Optional.empty();
    }

    /**
     * Whether {@code error} says the server ended the session while a round trip ran (a
     * PostgreSQL backend terminated): one of the round trip's queries may have been the cause.
     */
    default boolean endedByServer(SQLException error) {
        return false;
    }

    /**
     * Why the server ended this session while it was idle (a PostgreSQL server that shuts down sends
     * its sessions an error before closing them), or empty while it looks open. Sends nothing and
     * waits at most a millisecond: called every few seconds between ticks. The default (a kind that
     * cannot tell) is empty; the next tick finds out then.
     */
    default Optional<String> endedWhileIdle() {
        return Optional.empty();
    }

    /**
     * Whether anything arrived on this session while it is idle, answered without reading (a count
     * of waiting bytes), from any thread and without blocking: true asks the owning thread to call
     * {@link #endedWhileIdle}. The default (a kind that cannot tell) is false.
     */
    default boolean anythingArrived() {
        return false;
    }

    /**
     * Whether {@code error} says a query waited for a lock another session holds ({@code lock_timeout}):
     * neither the metric's fault nor the server's load, so it never demotes the metric. The
     * default (a kind that cannot tell) is false.
     */
    default boolean waitedForLock(SQLException error) {
        return false;
    }

    /**
     * Notices the server sent this session past what pgharvest keeps per round trip, dropped
     * unread since the session opened (docs/security.md). The default (a kind that keeps none): 0.
     */
    default long droppedNotices() {
        return 0;
    }

    /** True when an error means the session itself is gone, not just one query. */
    default boolean isBroken(SQLException error) {
        return classify(error) == Failure.BROKEN;
    }

    @Override
    void close();

    /** How a failed round trip bears on the session and its metrics. */
    enum Failure {
        /** The session is gone: reconnect. */
        BROKEN,
        /** The server did not answer in time (statement or lock timeout, cancel): keep the session. */
        SLOW,
        /** The SQL itself failed (a missing relation, a privilege, a type error). */
        METRIC
    }
}
