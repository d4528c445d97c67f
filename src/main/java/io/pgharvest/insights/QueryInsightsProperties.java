package io.pgharvest.insights;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import io.pgharvest.nativemetric.PlanningLogin;
import java.time.Duration;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of the query insights metrics ({@code pgharvest.query-insights.*}, docs/query-insights.md).
 *
 * @param topStatements how many statements of a database get a query_stats row of their own on
 *     each read (by execution plus planning time in the interval); the rest are summed into one
 *     row with {@code queryid = other}. 1 to 1,000
 * @param includeOwnStatements whether query_stats counts the statements of pgharvest's own login
 *     role (and of the role its sessions act as). Off by default: the collector's own reads would
 *     otherwise show among the database's statements and crowd the top with monitoring
 * @param planStatements how many of a database's top statements (by their time in the latest
 *     query_stats read) query_plans plans, each at most once per {@code planEvery}. 1 to 100
 * @param planEvery how long a statement's plan stands before query_plans asks for it again (while
 *     the statement stays on top): a plan change shows at most this long after it happened. Shorter
 *     sees changes sooner and spends more of the planning budget. 1 s to 7 days
 * @param planBudget how much time query_plans may spend planning per source and hour; once spent,
 *     planning waits for the next hour. 1 ms to 1 h
 * @param planTimeout the server's statement timeout for one plan. 1 ms to 10 min
 * @param textsTimeout the time limit of query_texts' read (which makes the server read the
 *     extension's query text file), instead of the session's default statement timeout. 1 ms to 10 min
 * @param planAsSuperuser no longer supported, refused when true: plans are made on the planning
 *     role's own login ({@code planningUser}), which is never a superuser
 * @param planningUser the role query_plans logs in as to plan, on every source that collects it (the
 *     source's server, database and connection parameters, this user and password): a role of its
 *     own without pg_read_all_settings, pg_read_all_stats or pg_monitor and no member of a source's
 *     role, because planning runs code a database owner wrote with the planning session's rights
 *     (docs/security.md). Empty by default: query_plans then plans nothing and the source's status
 *     says "plans off: no planning role"
 * @param planningPassword the planning role's password; empty when the server asks none (a client
 *     certificate, trust). A secret: never logged or shown
 * @param replanFactor how far a planned statement's time per call or rows per call (in a query_stats
 *     read, against the read before its plan) must move, as a factor either way, for query_plans to
 *     plan it again before {@code planEvery} has passed (within the budget): an index dropped or a
 *     changed data distribution shows in its next round. 1.1 to 1,000
 * @param sampleRowsEvery how often active_sessions sums the samplings it took (one a run, every
 *     second or two) into rows: one row per session, statement, state and wait with its number of
 *     samples. Shorter shows a running statement sooner and writes more rows. 1 s to 10 min
 */
@Validated
@ConfigurationProperties("pgharvest.query-insights")
public record QueryInsightsProperties(@Min(1) @Max(1000) @DefaultValue("50") int topStatements,
        @DefaultValue("false") boolean includeOwnStatements,
        @Min(1) @Max(100) @DefaultValue("10") int planStatements,
        @DefaultValue("1d") Duration planEvery,
        @DefaultValue("10s") Duration planBudget,
        @DefaultValue("5s") Duration planTimeout,
        @DefaultValue("5s") Duration textsTimeout,
        @DefaultValue("false") boolean planAsSuperuser,
        @DefaultValue("") String planningUser,
        @DefaultValue("") String planningPassword,
        @DefaultValue("2") double replanFactor,
        @DefaultValue("10s") Duration sampleRowsEvery) {

    private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    // Two constructors: Spring binds through this one (without the annotation it finds none and every
    // application context fails to start: "No default constructor found").
    @ConstructorBinding
    public QueryInsightsProperties {
        if (topStatements < 1 || topStatements > 1000) {
            throw new IllegalArgumentException("pgharvest.query-insights.top-statements must be 1 to 1000, got "
                    + topStatements);
        }
        if (planStatements < 1 || planStatements > 100) {
            throw new IllegalArgumentException("pgharvest.query-insights.plan-statements must be 1 to 100, got "
                    + planStatements);
        }
        if (planEvery == null || planEvery.compareTo(Duration.ofSeconds(1)) < 0
                || planEvery.compareTo(Duration.ofDays(7)) > 0) {
            throw new IllegalArgumentException("pgharvest.query-insights.plan-every must be 1s to 7d, got " + planEvery);
        }
        requireWithin("plan-budget", planBudget, Duration.ofHours(1));
        requireWithin("plan-timeout", planTimeout, MAX_TIMEOUT);
        requireWithin("texts-timeout", textsTimeout, MAX_TIMEOUT);
        if (planAsSuperuser) {
            throw new IllegalArgumentException("pgharvest.query-insights.plan-as-superuser is no longer supported:"
                    + " query_plans plans on the planning role's own login (pgharvest.query-insights.planning-user),"
                    + " which is never a superuser; remove the setting");
        }
        planningUser = planningUser == null ? "" : planningUser.strip();
        planningPassword = planningPassword == null ? "" : planningPassword;
        if (planningUser.isEmpty() && !planningPassword.isEmpty()) {
            throw new IllegalArgumentException("pgharvest.query-insights.planning-password is set without"
                    + " pgharvest.query-insights.planning-user");
        }
        if (!(replanFactor >= 1.1 && replanFactor <= 1000)) {
            throw new IllegalArgumentException("pgharvest.query-insights.replan-factor must be 1.1 to 1000, got "
                    + replanFactor);
        }
        if (sampleRowsEvery == null || sampleRowsEvery.compareTo(Duration.ofSeconds(1)) < 0
                || sampleRowsEvery.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException("pgharvest.query-insights.sample-rows-every must be 1s to 10m, got "
                    + sampleRowsEvery);
        }
        if (planningUser.length() > 63 || planningUser.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("pgharvest.query-insights.planning-user must be a role name of at"
                    + " most 63 characters without control characters");
        }
    }

    /** The planning role's login, empty when none is configured (query_plans is then off). */
    public Optional<PlanningLogin> planningLogin() {
        return planningUser.isEmpty() ? Optional.empty()
                : Optional.of(new PlanningLogin(planningUser,
                        planningPassword.isEmpty() ? null : planningPassword));
    }

    /** The settings with the password masked: safe to log. */
    @Override
    public String toString() {
        return "QueryInsightsProperties[topStatements=" + topStatements + ", includeOwnStatements="
                + includeOwnStatements + ", planStatements=" + planStatements + ", planEvery=" + planEvery
                + ", planBudget=" + planBudget + ", planTimeout=" + planTimeout + ", textsTimeout=" + textsTimeout
                + ", planningUser=" + planningUser + ", planningPassword=" + (planningPassword.isEmpty() ? "" : "********")
                + ", replanFactor=" + replanFactor + ", sampleRowsEvery=" + sampleRowsEvery + "]";
    }

    /** The defaults, with these two settings of query_stats. */
    public QueryInsightsProperties(int topStatements, boolean includeOwnStatements) {
        this(topStatements, includeOwnStatements, 10, Duration.ofDays(1), Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ofSeconds(5), false, "", "", 2, Duration.ofSeconds(10));
    }

    private static void requireWithin(String name, Duration value, Duration max) {
        if (value == null || value.compareTo(Duration.ofMillis(1)) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException("pgharvest.query-insights." + name + " must be 1ms to " + max
                    + ", got " + value);
        }
    }
}
