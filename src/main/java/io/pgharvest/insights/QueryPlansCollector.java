package io.pgharvest.insights;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.GenericPlans;
import io.pgharvest.nativemetric.NativeMetric;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.PlanningLogin;
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
 * planning role's own session ({@link GenericPlans#open}: its own login, opened only when a round has
 * something to plan and closed at its end; a read-only transaction, the plan timeout per plan) and
 * stored redacted with a hash of its shape ({@link PlanDocument}) and the role it was planned as.
 * Without a planning role nothing is planned: the metric is unavailable, the status says why.
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

    /** The metric's reason in the source's status while no planning role is configured. */
    private static final String INSUFFICIENT_PRIVILEGE = "42501";
    static final String PLANS_OFF = "plans off: no planning role (pgharvest.query-insights.planning-user,"
            + " docs/security.md)";

    private final int statements;
    /** How long a statement's plan stands before it is asked again. */
    private final Duration planEvery;
    private final Duration timeout;
    private final PlanBudget budget;
    /** The planning role's login; null when none is configured (plans off). */
    private final PlanningLogin login;
    /** How far a statement's pace must move for it to be planned again early ({@link StatementBook.Pace#movedFrom}). */
    private final double replanFactor;
    /** Where each statement's latest shape outlives this collector (a restart); null: in this collector only. */
    private final PlanShapes shapes;
    /** Query id -> when its plan was last asked and its pace then (at most planEvery's worth of ids). */
    private final Map<Long, Asked> asked = new HashMap<>();

    /** A plan asked: when, and the statement's pace in the query_stats read it was planned after. */
    private record Asked(Instant at, StatementBook.Pace pace) {
    }

    /**
     * A call count below which a read's time per call is too noisy to plan again for (one slow
     * call of three is no plan change).
     */
    static final double MIN_CALLS_TO_COMPARE = 3;

    /**
     * @param statements how many top statements to consider on a read
     * @param planEvery how long a plan stands before the statement is planned again
     * @param budgetPerHour the planning time allowed per hour
     * @param timeout the server's statement timeout for one plan
     * @param login the planning role's login ({@link GenericPlans#open}); null: plans off
     */
    QueryPlansCollector(int statements, Duration planEvery, Duration budgetPerHour, Duration timeout,
            PlanningLogin login) {
        this(statements, planEvery, budgetPerHour, timeout, login, 2, null);
    }

    /**
     * @param replanFactor how far a statement's time or rows per call must move (either way) for
     *     it to be planned again before {@code planEvery}
     * @param shapes the statements' latest shapes across restarts; null to keep them in this collector only
     */
    QueryPlansCollector(int statements, Duration planEvery, Duration budgetPerHour, Duration timeout,
            PlanningLogin login, double replanFactor, PlanShapes shapes) {
        this.statements = statements;
        this.planEvery = planEvery;
        this.budget = new PlanBudget(budgetPerHour);
        this.timeout = timeout;
        this.login = login;
        this.replanFactor = replanFactor;
        this.shapes = shapes != null ? shapes : new PlanShapes(null, Instant.EPOCH);
    }

    /**
     * @throws NativeMetric.Unavailable without a planning role: never plan as the monitoring role
     */
    @Override
    public List<Measurement.Row> collect(NativeTarget target) throws Exception {
        if (login == null) {
            throw new NativeMetric.Unavailable(PLANS_OFF);
        }
        Instant now = target.now();
        asked.values().removeIf(a -> !now.isBefore(a.at().plus(planEvery)));
        StatementBook book = target.shelf().item(StatementBook.class, StatementBook::new);
        var rows = new ArrayList<Measurement.Row>();
        SQLException lastFailure = null;
        GenericPlans.Planning planning = null;
        try {
            for (long queryId : book.ranked().subList(0, Math.min(statements, book.ranked().size()))) {
                String text = book.plainRead(queryId);
                StatementBook.Pace pace = book.pace(queryId);
                if (text == null || (asked.containsKey(queryId) && !moved(asked.get(queryId), pace))) {
                    continue;
                }
                if (!budget.allows(now)) {
                    break;
                }
                if (planning == null) {
                    planning = open(target); // only when there is something to plan
                }
                asked.put(queryId, new Asked(now, pace));
                long started = System.nanoTime();
                try {
                    PlanDocument plan = PlanDocument.of(planning.genericPlan(text, timeout));
                    PlanShapes.Shape before = shapes.record(target.source(), target.database(), queryId, plan.hash(),
                            now);
                    rows.add(row(queryId, plan, before, target.database(), planning.role()));
                } catch (SQLException e) {
                    if (isSessionLost(e)) {
                        asked.remove(queryId); // not this statement's doing
                        throw new PlanningSessionLost("the planning role's session ended [SQLState "
                                + e.getSQLState() + "]: " + e.getMessage());
                    }
                    lastFailure = e;
                } finally {
                    budget.spend(Duration.ofNanos(System.nanoTime() - started));
                }
            }
        } finally {
            if (planning != null) {
                planning.close();
            }
        }
        if (rows.isEmpty() && lastFailure != null) {
            throw lastFailure;
        }
        return rows;
    }

    /**
     * The planning role's session. Its failures are never SQLExceptions here: the engine would take
     * a connection error for the loss of the monitoring session and reconnect that.
     *
     * @throws NativeMetric.Unavailable when the server refused the role (it may read too much)
     * @throws PlanningSessionLost when the login failed
     */
    private GenericPlans.Planning open(NativeTarget target) throws NativeMetric.Unavailable, PlanningSessionLost {
        try {
            return target.plans().open(login);
        } catch (SQLException e) {
            if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
                throw new NativeMetric.Unavailable("plans off: " + e.getMessage());
            }
            throw new PlanningSessionLost("logging in as the planning role " + login.user() + " failed [SQLState "
                    + e.getSQLState() + "]: " + e.getMessage());
        }
    }

    /** The planning role's session could not be opened or ended: no plan this round, try again next. */
    static final class PlanningSessionLost extends Exception {

        PlanningSessionLost(String message) {
            super(message, null, false, false);
        }

        @Override
        public String toString() {
            return getMessage();
        }
    }

    /**
     * Whether a statement planned before moved so far since (its time or rows per call, in reads
     * with enough calls to tell) that its plan may have changed: planned again before planEvery.
     */
    private boolean moved(Asked before, StatementBook.Pace now) {
        return before.pace() != null && now != null && before.pace().calls() >= MIN_CALLS_TO_COMPARE
                && now.calls() >= MIN_CALLS_TO_COMPARE && now.movedFrom(before.pace(), replanFactor);
    }

    /** A plan's row; with the shape it replaced when the statement's latest plan had another one. */
    private static Measurement.Row row(long queryId, PlanDocument plan, PlanShapes.Shape before, String database,
            String role) {
        var values = new LinkedHashMap<String, Object>();
        values.put("plan", plan.json());
        values.put("plan_hash", plan.hash());
        values.put("planned_as", role);
        if (before != null) {
            values.put("previous_plan_hash", before.hash());
            values.put("previous_planned_at", before.plannedAt().toString());
        }
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
