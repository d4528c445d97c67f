package io.pgharvest.kind.postgres;

import io.pgharvest.model.sql.PlainRead;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.postgresql.PGConnection;

/**
 * Asks a PostgreSQL server for the generic plan of one plain read (query_plans): the one thing a
 * session does beyond reading, and only this. The text must be one SELECT or WITH ... SELECT
 * ({@link PlainRead}) that pgjdbc sends as one message ({@link OneSelect#requireOneParsePerPart});
 * it is planned, never run (EXPLAIN without ANALYZE), inside {@code BEGIN TRANSACTION READ ONLY}
 * with the metric's statement timeout and the search path of {@link #PLAN_SEARCH_PATH} as
 * {@code SET LOCAL}, and the transaction is rolled back, on the planning role's own session
 * ({@link PlanningSession}):
 * whatever a text could do despite the checks meets a read-only transaction that ends with it.
 *
 * <p>The text is prepared under a name of pgharvest's ({@code PREPARE}, in a Parse message of its own,
 * so the server itself holds it to one preparable statement) and explained as {@code EXECUTE} with
 * NULL parameters under {@code SET LOCAL plan_cache_mode = force_generic_plan}: the plan is built
 * without the parameters' values, so the NULLs do not shape it. Then it is deallocated, also when
 * the plan failed, since a prepared statement outlives a rollback. The same on every version:
 * PostgreSQL 16's {@code EXPLAIN (GENERIC_PLAN)} would take the text's {@code $n} as parameters of
 * the EXPLAIN itself in the extended protocol ("bind message supplies 0 parameters"), and the
 * simple protocol that avoids it would let the server run a second statement hidden in the text.
 * The whole exchange is bounded by {@link RoundTripDeadline} besides the server's timeout.
 */
final class GenericPlanner {

    /** The name of the statement prepared for a plan (never pgjdbc's {@code S_n}). */
    static final String PREPARED_NAME = "pgharvest_generic_plan";
    /**
     * The names of a planned text resolve as in a session with PostgreSQL's default search_path
     * (the application's own path is not recorded with its statements): the session's pinned
     * path ({@link SessionOpener#PINNED_SEARCH_PATH}) would find no table of the application.
     * pg_catalog first and pg_temp last, so an object in public cannot stand in for a built-in.
     */
    static final String PLAN_SEARCH_PATH = "pg_catalog, public, pg_temp";
    private static final String INSUFFICIENT_PRIVILEGE = "42501";
    private static final String NO_SUCH_STATEMENT = "26000";

    private final Connection connection;

    GenericPlanner(Connection connection) {
        this.connection = connection;
    }

    /** @return the plan as EXPLAIN (FORMAT JSON) gives it */
    String plan(String statement, Duration timeout) throws SQLException {
        OptionalInt parameters = PlainRead.parameterCount(statement);
        if (parameters.isEmpty()) {
            throw new SQLException("refused to plan: not one plain SELECT or WITH ... SELECT", INSUFFICIENT_PRIVILEGE);
        }
        refuseSuperuser();
        String body = body(statement);
        OneSelect.requireOneParsePerPart(connection, body, List.of(body));
        try (var deadline = RoundTripDeadline.start(connection, timeout.multipliedBy(3));
                Statement st = connection.createStatement()) {
            st.setEscapeProcessing(false);
            boolean prepared = false;
            String plan;
            try {
                st.execute("begin transaction read only; set local statement_timeout = " + timeout.toMillis()
                        + "; set local search_path = " + PLAN_SEARCH_PATH
                        + "; set local plan_cache_mode = force_generic_plan");
                st.execute("prepare " + PREPARED_NAME + " as " + body);
                prepared = true;
                plan = onlyValue(st, "explain (format json) execute " + PREPARED_NAME + nulls(parameters.getAsInt()));
                st.execute("deallocate " + PREPARED_NAME);
                prepared = false;
            } catch (SQLException | RuntimeException e) {
                try {
                    end(st, prepared);
                } catch (SQLException endFailed) {
                    e.addSuppressed(endFailed); // the session is probably gone; the caller decides
                }
                throw e;
            }
            end(st, false);
            return plan;
        }
    }

    /**
     * Planning runs code of the monitored database with this session's rights, code a database
     * owner can write: the planner folds an immutable function with constant arguments (or none)
     * into its value by calling it, and a view brings its own expressions, constants and all (a
     * statement's own constants are {@code $n}, so they fold nothing). {@link #PLAN_SEARCH_PATH}
     * keeps {@code public} from shadowing a built-in, but a statement that names the owner's
     * function, or reads the owner's view, runs it. So plans are made on the planning role's own
     * login ({@link PlanningSession}), and never as a superuser, who could do anything from a
     * SELECT ({@code COPY ... TO PROGRAM}, files, other sessions). The server reports
     * {@code is_superuser} for the current role on every change, so this costs no round trip.
     */
    private void refuseSuperuser() throws SQLException {
        if ("on".equals(connection.unwrap(PGConnection.class).getParameterStatus("is_superuser"))) {
            throw new SQLException("refused to plan as a superuser: planning runs functions and views a database"
                    + " owner wrote with the session's rights; plan as a role of its own (docs/security.md)",
                    INSUFFICIENT_PRIVILEGE);
        }
    }

    /**
     * Rolls the transaction back, releases session advisory locks (the one thing a function run
     * while planning could leave that a rollback does not undo, as after a tick's round trip) and,
     * when the plan failed after PREPARE, deallocates.
     */
    private static void end(Statement st, boolean prepared) throws SQLException {
        st.execute("rollback; select pg_catalog.pg_advisory_unlock_all()");
        if (prepared) {
            try {
                st.execute("deallocate " + PREPARED_NAME);
            } catch (SQLException e) {
                if (!NO_SUCH_STATEMENT.equals(e.getSQLState())) {
                    throw e;
                }
            }
        }
    }

    private static String onlyValue(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            if (!rs.next()) {
                throw new SQLException("EXPLAIN returned no plan");
            }
            return rs.getString(1);
        }
    }

    private static String nulls(int count) {
        return count == 0 ? "" : "(" + String.join(", ", java.util.Collections.nCopies(count, "null")) + ")";
    }

    private static String body(String statement) {
        int end = statement.length();
        while (end > 0 && (statement.charAt(end - 1) == ';' || Character.isWhitespace(statement.charAt(end - 1)))) {
            end--;
        }
        return statement.substring(0, end);
    }
}
