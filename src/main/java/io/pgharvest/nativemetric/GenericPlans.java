package io.pgharvest.nativemetric;

import java.sql.SQLException;
import java.time.Duration;

/**
 * Asks the source's server for generic plans of plain reads (query_plans): the one capability a
 * native metric has beyond reading, and a narrow one. Plans are made on a session of their own that
 * logged in as the planning role ({@link PlanningLogin}), never on the monitoring session: planning
 * runs code a database owner wrote with the planning session's rights. The session builds the
 * PREPARE and EXPLAIN around the text, refuses a text that is not one SELECT or WITH ... SELECT
 * ({@link io.pgharvest.model.sql.PlainRead}), and plans in a read-only transaction that is rolled
 * back, under the time limit the metric gives, leaving nothing behind.
 */
@FunctionalInterface
public interface GenericPlans {

    /** Refuses to plan: a peer that is not a PostgreSQL server. */
    GenericPlans NONE = login -> {
        throw new SQLException("generic plans need a PostgreSQL server", "0A000");
    };

    /**
     * Logs in as the planning role on the source's server and database and checks it: never a
     * superuser, never able to read all settings or statistics (pg_read_all_settings,
     * pg_read_all_stats, pg_monitor), never a member of the source's own role.
     *
     * @throws SQLException when the login fails or the role holds more than it may (SQLState 42501)
     */
    Planning open(PlanningLogin login) throws SQLException;

    /** A planning session; used by one thread, closed when the metric's round of plans ends. */
    interface Planning extends AutoCloseable {

        /** The role the plans are made as ({@code session_user}, which no planned code can change). */
        String role();

        /**
         * @param statement a normalized statement text ({@code $n} for its parameters)
         * @param timeout the server's statement timeout for the plan
         * @return the plan as EXPLAIN (FORMAT JSON) gives it
         */
        String genericPlan(String statement, Duration timeout) throws SQLException;

        /** Ends the session; never throws. */
        @Override
        void close();
    }
}
