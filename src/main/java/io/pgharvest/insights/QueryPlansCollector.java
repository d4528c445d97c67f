package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * query_plans for one source: the generic plan of each of the database's top statements (by their
 * time in the latest query_stats read) that is a plain read, at most once per query id and
 * {@code planEvery} (a day by default), for
 * as long as the hour's time budget lasts ({@link PlanBudget}). Ranks and texts come from the
 * source's query_stats and query_texts ({@link StatementBook}): this collector reads no statement
 * text itself, so without those two metrics it plans nothing. Each plan is asked through the
 * session's one planning capability ({@link io.pgharvest.nativemetric.GenericPlans}: a read-only
 * transaction, the plan timeout) and stored redacted with a hash of its shape ({@link PlanDocument}).
 * A statement whose plan failed (a temporary table of another session, a timeout) is not asked
 * again within that time either.
 *
 * <p>Plans are asked per source, on the source's own session, also when several databases of an
 * instance collect query_plans (unlike query_stats and query_texts, which read the instance-wide
 * pg_stat_statements once for all of them): a statement is planned in the database it ran in,
 * where its names resolve to that database's tables, and a session plans only in its own database.
 * Used by the source's reaper thread only.
 */
final class QueryPlansCollector implements NativeMetric.Collector {

    private final int statements;
    /** How long a statement's plan stands before it is asked again. */
    private final Duration planEvery;
    private final Duration timeout;
    private final PlanBudget budget;
    /** Whether a superuser's session may plan ({@link io.pgharvest.nativemetric.GenericPlans}). */
    private final boolean asSuperuser;
    /** Query id -> when its plan was last asked (at most planEvery's worth of ids). */
    private final Map<Long, Instant> asked = new HashMap<>();

    /**
     * @param statements how many top statements to consider on a read
     * @param planEvery how long a plan stands before the statement is planned again
     * @param budgetPerHour the planning time allowed per hour
     * @param timeout the server's statement timeout for one plan
     */
    QueryPlansCollector(int statements, Duration planEvery, Duration budgetPerHour, Duration timeout) {
        this(statements, planEvery, budgetPerHour, timeout, false);
    }

    /**
     * @param statements how many top statements to consider on a read
     * @param planEvery how long a plan stands before the statement is planned again
     * @param budgetPerHour the planning time allowed per hour
     * @param timeout the server's statement timeout for one plan
     * @param asSuperuser whether to plan when the session's role is a superuser (unsafe: the plan
     *     runs a database owner's functions with the session's rights)
     */
    QueryPlansCollector(int statements, Duration planEvery, Duration budgetPerHour, Duration timeout,
            boolean asSuperuser) {
        this.statements = statements;
        this.planEvery = planEvery;
        this.budget = new PlanBudget(budgetPerHour);
        this.timeout = timeout;
        this.asSuperuser = asSuperuser;
    }

    @Override
    public List<Measurement.Row> collect(NativeTarget target) throws Exception {
        Instant now = target.now();
        asked.values().removeIf(at -> !now.isBefore(at.plus(planEvery)));
        StatementBook book = target.shelf().item(StatementBook.class, StatementBook::new);
        var rows = new ArrayList<Measurement.Row>();
        SQLException lastFailure = null;
        for (long queryId : book.ranked().subList(0, Math.min(statements, book.ranked().size()))) {
            String text = book.plainRead(queryId);
            if (text == null || asked.containsKey(queryId)) {
                continue;
            }
            if (!budget.allows(now)) {
                break;
            }
            asked.put(queryId, now);
            long started = System.nanoTime();
            try {
                rows.add(row(queryId, PlanDocument.of(target.plans().genericPlan(text, timeout, asSuperuser)), target.database()));
            } catch (SQLException e) {
                if (isSessionLost(e)) {
                    throw e;
                }
                lastFailure = e;
            } finally {
                budget.spend(Duration.ofNanos(System.nanoTime() - started));
            }
        }
        if (rows.isEmpty() && lastFailure != null) {
            throw lastFailure;
        }
        return rows;
    }

    private static Measurement.Row row(long queryId, PlanDocument plan, String database) {
        var values = new LinkedHashMap<String, Object>();
        values.put("plan", plan.json());
        values.put("plan_hash", plan.hash());
        return new Measurement.Row(values, Map.of("queryid", Long.toString(queryId), "dbname", database));
    }

    /** Connection class or operator intervention: the engine reconnects; not this statement's doing. */
    private static boolean isSessionLost(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("08") || state.startsWith("57P"));
    }

    /** The planning time spent in the current hour. */
    Duration spentThisHour() {
        return budget.spent();
    }
}
