package io.pgharvest.endpoint;

import io.pgharvest.model.Measurement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * A session on an admin console (pgbouncer's, pgpool's): a monitored endpoint that is not a
 * PostgreSQL server. Opened by {@link SessionOpener#openConsole} for a {@link ConsoleDialect}.
 *
 * <p>Such endpoints run one command per round trip, have no transactions and no server-side
 * statement timeout; the limits given here are enforced by the client.
 */
public interface ConsoleSession extends AutoCloseable {

    /** What the endpoint said it is when the session opened, e.g. "PgBouncer 1.18.0". */
    String version();

    /** Which console this is: which of a metric's SQL keys it runs ({@link ConsoleDialect#sqlKey()}). */
    ConsoleDialect dialect();

    /**
     * Runs one command and returns its rows: integers as Long, numeric as BigDecimal, floats as
     * Double, booleans as Boolean, everything else as text.
     *
     * @param timeout how long the endpoint may take to answer; past it the session is lost
     */
    List<Measurement.Row> run(String command, Duration timeout) throws SQLException;

    /** True when {@code error} (thrown by this session) means the session itself is gone. */
    boolean isBroken(SQLException error);

    @Override
    void close();
}
