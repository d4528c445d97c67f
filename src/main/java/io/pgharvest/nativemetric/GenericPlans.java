package io.pgharvest.nativemetric;

import java.sql.SQLException;
import java.time.Duration;

/**
 * Asks the source's server for the generic plan of one plain read (query_plans): the one capability
 * a native metric has beyond reading, and a narrow one. The session, not the metric, builds the
 * EXPLAIN (or, before PostgreSQL 16, the PREPARE it needs) around the text, refuses a text that is
 * not one SELECT or WITH ... SELECT ({@link io.pgharvest.model.sql.PlainRead}), and runs it in a
 * read-only transaction of its own under the time limit the metric gives, leaving nothing behind.
 */
@FunctionalInterface
public interface GenericPlans {

    /** Refuses every statement: a peer that is not a PostgreSQL server. */
    GenericPlans NONE = (statement, timeout, asSuperuser) -> {
        throw new SQLException("generic plans need a PostgreSQL server", "0A000");
    };

    /**
     * @param statement a normalized statement text ({@code $n} for its parameters)
     * @param timeout the server's statement timeout for the plan
     * @param asSuperuser whether a session whose role is a superuser may plan. Planning runs code a
     *     database owner can write (their immutable functions and operators folded into constants,
     *     their views' expressions) with the session's rights, so a superuser's session refuses
     *     unless the operator said so ({@code pgharvest.query-insights.plan-as-superuser})
     * @return the plan as EXPLAIN (FORMAT JSON) gives it
     */
    String genericPlan(String statement, Duration timeout, boolean asSuperuser) throws SQLException;
}
