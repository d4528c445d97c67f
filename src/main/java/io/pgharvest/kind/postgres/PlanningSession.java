package io.pgharvest.kind.postgres;

import io.pgharvest.kind.ResultLimits;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.nativemetric.GenericPlans;
import io.pgharvest.nativemetric.PlanningLogin;
import io.pgharvest.support.wire.ResultBytesBound;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * query_plans' own session: the source's server, database and connection parameters, logged in as
 * the planning role ({@link PlanningLogin}), so that the code a database owner can get run while
 * planning ({@link GenericPlanner}) runs with that role's rights and no more. A login, not
 * {@code SET ROLE}: a function run while planning may {@code RESET ROLE} or call
 * {@code set_config('role', ...)} to become the session user again, and the session user here is
 * the planning role itself ({@code SET SESSION AUTHORIZATION} needs a superuser).
 *
 * <p>Before it plans anything the session checks, on the server, that the role cannot read what
 * pgharvest's monitoring role can and it may not: it is no superuser, holds no CREATEROLE (before
 * PostgreSQL 16 that grants any predefined role), has the privileges of none of {@link #FORBIDDEN}
 * and is no member of the source's own role (which it could {@code SET ROLE} to). The same opener
 * rules as every session apply (read-only by default, a superuser login refused unless allowed,
 * results bounded). Used by one reaper thread, for one round of plans.
 */
final class PlanningSession implements GenericPlans.Planning {

    /** Predefined roles whose rights a planning role must not have: settings, statistics, files, signals. */
    static final List<String> FORBIDDEN = List.of("pg_read_all_settings", "pg_read_all_stats", "pg_monitor",
            "pg_signal_backend", "pg_read_server_files", "pg_write_server_files", "pg_execute_server_program");
    private static final String INSUFFICIENT_PRIVILEGE = "42501";
    private static final String CHECK_SQL = """
            select r.rolsuper, r.rolcreaterole,
                   array(select f from unnest(?::text[]) f where pg_catalog.pg_has_role(session_user, f, 'MEMBER')),
                   coalesce((select pg_catalog.pg_has_role(session_user, m.oid, 'MEMBER')
                             from pg_catalog.pg_roles m where m.rolname = ?), false),
                   session_user = current_user
            from pg_catalog.pg_roles r where r.rolname = session_user""";

    private final Connection connection;
    private final ResultBytesBound bound;
    private final ResultLimits limits;
    private final GenericPlanner planner;
    private final String role;

    private PlanningSession(Connection connection, ResultBytesBound bound, ResultLimits limits, String role) {
        this.connection = connection;
        this.bound = bound;
        this.limits = limits;
        this.planner = new GenericPlanner(connection);
        this.role = role;
    }

    /**
     * Logs in to {@code source}'s server and database as {@code login} and checks the role.
     *
     * @throws SQLException when the login fails, or with SQLState 42501 when the role may read more
     *     than a planning role may (nothing is planned then)
     */
    static PlanningSession open(SessionOpener opener, ConnectionString source, PlanningLogin login)
            throws SQLException {
        if (login.user().equals(source.user())) {
            throw new SQLException("refused to plan: the planning role " + login.user() + " is the source's own"
                    + " role; create a role of its own for plans (docs/security.md)", INSUFFICIENT_PRIVILEGE);
        }
        SessionSettings settings = opener.settings();
        var opened = opener.openWithSocket(source.withCredentials(login.user(), login.password()));
        Connection connection = opened.value();
        try {
            opened.bound().arm(settings.resultLimits().maxBytes());
            connection.setAutoCommit(true);
            connection.setNetworkTimeout(Runnable::run, (int) settings.socketTimeout().toMillis());
            requireNarrowRole(connection, login.user(), source.user());
            return new PlanningSession(connection, opened.bound(), settings.resultLimits(), login.user());
        } catch (SQLException | RuntimeException e) {
            try {
                connection.close();
            } catch (SQLException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    private static void requireNarrowRole(Connection connection, String user, String sourceUser) throws SQLException {
        var excess = new ArrayList<String>();
        try (PreparedStatement st = connection.prepareStatement(CHECK_SQL)) {
            st.setArray(1, connection.createArrayOf("text", FORBIDDEN.toArray()));
            st.setString(2, sourceUser);
            try (ResultSet rs = st.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("the planning role " + user + " is not in pg_roles", INSUFFICIENT_PRIVILEGE);
                }
                if (rs.getBoolean(1)) {
                    excess.add("is a superuser");
                }
                if (rs.getBoolean(2)) {
                    excess.add("has CREATEROLE");
                }
                for (Object granted : (Object[]) rs.getArray(3).getArray()) {
                    excess.add("has the privileges of " + granted);
                }
                if (rs.getBoolean(4)) {
                    excess.add("is a member of the source's role " + sourceUser);
                }
                if (!rs.getBoolean(5)) {
                    excess.add("acts as another role at login (ALTER ROLE ... SET role)");
                }
            }
        }
        if (!excess.isEmpty()) {
            throw new SQLException("refused to plan as " + user + ": the planning role " + String.join(", ", excess)
                    + "; code a database owner wrote runs while planning with its rights (docs/security.md)",
                    INSUFFICIENT_PRIVILEGE);
        }
    }

    @Override
    public String role() {
        return role;
    }

    /** {@link GenericPlanner}, its results bounded as the monitoring session's are. */
    @Override
    public String genericPlan(String statement, Duration timeout) throws SQLException {
        bound.watch();
        String plan;
        try {
            plan = planner.plan(statement, timeout);
        } catch (SQLException e) {
            ResultTooLargeException.requireWhole(bound, limits); // a cut plan reads as none: say why
            throw e;
        }
        ResultTooLargeException.requireWhole(bound, limits);
        return plan;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // the server ends the backend with the socket; nothing is left to undo
        }
    }
}
