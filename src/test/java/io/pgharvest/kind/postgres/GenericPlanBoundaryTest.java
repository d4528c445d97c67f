package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a database owner can make a plan run, on a real server: planning folds an immutable
 * function the statement names into its value by calling it, with the planning session's rights.
 * The owner's function in {@code public}, named by the application's top statement, runs as the
 * pg_monitor role when that role plans (and a session advisory lock it takes does not outlive the
 * plan); a superuser's session refuses to plan, so the function never runs as a superuser, unless
 * the operator allows it - and then it does.
 */
class GenericPlanBoundaryTest {

    private static final String DB = "owned_plans";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** The application's statement, as pg_stat_statements keeps it: the owner's function unqualified. */
    private static final String RUNS_OWNER_CODE = "select id from items where id = stamp()";
    private static final String TAKES_A_LOCK = "select id from items where id = lock_stamp()";
    private static TestPostgres server;

    @BeforeAll
    static void startServer() {
        server = TestPostgres.start(Map.of());
        server.execute("postgres", "create role app_owner login");
        server.execute("postgres", "create role plan_monitor login in role pg_monitor, pg_read_all_data");
        server.createDatabase(DB);
        server.execute("postgres", "alter database " + DB + " owner to app_owner");
        server.execute(DB, "create table items (id int primary key)");
        server.execute(DB, "insert into items select generate_series(1, 100)");
        server.execute(DB, """
                create function public.stamp() returns int language plpgsql immutable as $$
                begin
                  raise exception 'stamp ran as % (superuser %)', current_user, current_setting('is_superuser');
                end $$""");
        server.execute(DB, """
                create function public.lock_stamp() returns int language plpgsql immutable as $$
                begin
                  perform pg_advisory_lock(4242);
                  return 1;
                end $$""");
        server.execute(DB, "alter table items owner to app_owner");
        server.execute(DB, "alter function public.stamp() owner to app_owner");
        server.execute(DB, "alter function public.lock_stamp() owner to app_owner");
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void anOwnersFunctionRunsAsTheMonitoringRoleAndLeavesNoLock() throws Exception {
        try (PostgresSession session = open("plan_monitor", false)) {
            assertThatThrownBy(() -> session.genericPlan(RUNS_OWNER_CODE, TIMEOUT)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("stamp ran as plan_monitor (superuser off)");
            assertThat(session.genericPlan(TAKES_A_LOCK, TIMEOUT)).contains("items");
            assertThat(advisoryLocksHeld()).as("advisory locks left by the plan").isZero();
        }
    }

    @Test
    void aSuperusersSessionDoesNotPlanSoTheOwnersFunctionNeverRunsAsASuperuser() throws Exception {
        try (PostgresSession session = open("postgres", true)) {
            assertThatThrownBy(() -> session.genericPlan(RUNS_OWNER_CODE, TIMEOUT, false))
                    .isInstanceOf(SQLException.class).hasMessageContaining("refused to plan as a superuser")
                    .hasMessageNotContaining("stamp ran");
            assertThatThrownBy(() -> session.genericPlan(TAKES_A_LOCK, TIMEOUT))
                    .hasMessageContaining("refused to plan as a superuser");
            assertThat(advisoryLocksHeld()).isZero();
        }
    }

    @Test
    void withTheOperatorsConsentASuperusersPlanRunsTheOwnersFunctionAsASuperuser() throws Exception {
        try (PostgresSession session = open("postgres", true)) {
            assertThatThrownBy(() -> session.genericPlan(RUNS_OWNER_CODE, TIMEOUT, true))
                    .hasMessageContaining("stamp ran as postgres (superuser on)");
        }
    }

    private static long advisoryLocksHeld() {
        return Long.parseLong(server.queryString(DB,
                "select count(*)::text from pg_locks where locktype = 'advisory' and objid = 4242"));
    }

    private static PostgresSession open(String role, boolean superuserSources) throws Exception {
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1), false, superuserSources));
        return PostgresSession.open(opener, ConnectionString.parse(
                "postgresql://" + role + "@" + server.host() + ":" + server.port() + "/" + DB), Instant.now());
    }
}
