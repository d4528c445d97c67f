package io.pgharvest.kind.postgres;

import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.sql.MetricSql;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 26's bodies, written the way PostgreSQL reads them, against a real server: as a
 * superuser (with pgharvest.security.allow-superuser-sources) and as a pg_monitor-only role, with
 * pgharvest's own check, and as the pg_monitor role without it (the server's boundary alone).
 * After every body: no advisory lock held, no replication slot, no statistics reset, no
 * configuration reload, no WAL switch, no transaction id used, the table's rows unchanged, another
 * user's running query neither cancelled nor terminated, and a good metric still runs in the same
 * session, read-only, as the login role.
 */
class MetricBoundaryTest {

    private static final String DB = "boundary_db";
    private static final String GOOD = "select current_setting('default_transaction_read_only') as ro,"
            + " current_user::text as who, (select count(*) from public.t) as n";
    private static TestPostgres pg;
    private static Connection observer;
    private static Connection victim;
    private static int victimPid;
    private static Thread victimQuery;
    private static boolean dblink;

    @BeforeAll
    static void startServer() throws Exception {
        pg = TestPostgres.start(Map.of("shared_preload_libraries", "pg_stat_statements"));
        pg.createDatabase(DB);
        dblink = !pg.queryString(DB, "select count(*) from pg_available_extensions where name = 'dblink'").equals("0");
        pg.execute(DB, """
                create extension pg_stat_statements;
                create table t (id int);
                insert into public.t values (1), (2), (3);
                create role bnd_monitor login;
                grant pg_monitor to bnd_monitor;
                grant select on t to bnd_monitor;
                create procedure p() language sql as $$ insert into public.t values (9) $$;
                """ + (dblink ? "create extension dblink;" : ""));
        observer = pg.connect(DB);
        victim = pg.connect(DB);
        try (Statement st = victim.createStatement(); ResultSet rs = st.executeQuery("select pg_backend_pid()")) {
            rs.next();
            victimPid = rs.getInt(1);
        }
        // Another user's long query: no body may cancel or terminate it.
        victimQuery = Thread.ofVirtual().start(() -> {
            try (Statement st = victim.createStatement()) {
                st.execute("select pg_sleep(600)");
            } catch (SQLException ignored) {
                // ended by the test's own cancel at the end, or by a body (asserted below)
            }
        });
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (observer != null) {
            try (Statement st = observer.createStatement()) {
                st.execute("select pg_cancel_backend(" + victimPid + ")");
            }
            victimQuery.join(Duration.ofSeconds(10));
            victim.close();
            observer.close();
        }
        pg.close();
    }

    /** The bodies of issue 26 and variants: each must leave the server as it found it. */
    private static Map<String, String> bodies(boolean superuser) {
        var bodies = new LinkedHashMap<String, String>();
        bodies.put("unicode advisory lock", "select U&\"\\0070g_advisory_lock\"(42) as a");
        bodies.put("plain advisory lock", "select pg_advisory_lock(43) as a");
        bodies.put("shared advisory lock, UESCAPE", "select U&\"!0070g_advisory_lock_shared\" UESCAPE '!'(44) as a");
        bodies.put("unicode stats reset", "select U&\"\\0070g_stat_reset\"() as a");
        bodies.put("unicode pg_stat_statements reset", "select U&\"\\0070g_stat_statements_reset\"() as a");
        bodies.put("unicode reload", "select U&\"\\0070g_reload_conf\"() as a");
        bodies.put("unicode physical slot", "select U&\"\\0070g_create_physical_replication_slot\"('bnd_slot') as a");
        bodies.put("unicode wal switch", "select U&\"\\0070g_switch_wal\"() as a");
        bodies.put("unicode cancel", "select U&\"\\0070g_cancel_backend\"(" + victimPid + ") as a");
        bodies.put("unicode terminate", "select U&\"\\0070g_terminate_backend\"(" + victimPid + ") as a");
        bodies.put("comment ended by CR", "select 1 as a -- c\rcommit; set transaction read write; delete from public.t; select 1");
        bodies.put("comment ended by CR, call", "select 1 as a --\r; call p(); select 1");
        bodies.put("dollar after non-ASCII", "select 1 as a, €$$; set transaction read write; delete from public.t; select $$ as b");
        bodies.put("dollar after non-ASCII letter", "select 1 as é$$, 2 as b; delete from public.t; select $$ as c");
        bodies.put("query_to_xml lock", "select query_to_xml('select pg_advisory_lock(7)', true, false, '') as a");
        bodies.put("query_to_xml slot", "select query_to_xml('select pg_create_physical_replication_slot(''bnd_slot2'')',"
                + " true, false, '') as a");
        bodies.put("query_to_xml delete", "select query_to_xml('delete from public.t returning id', true, false, '') as a");
        bodies.put("query_to_xml_and_xmlschema lock",
                "select query_to_xml_and_xmlschema('select pg_advisory_lock(8)', true, false, '') as a");
        if (!superuser) {
            // SQL assembled from pieces outruns any check of the text; only the role stops these.
            bodies.put("query_to_xml concatenated slot", "select query_to_xml('select pg_create_physical'"
                    + " || '_replication_slot(''bnd_slot3'')', true, false, '') as a");
            bodies.put("query_to_xml concatenated stats reset",
                    "select query_to_xml('select pg_stat' || '_reset()', true, false, '') as a");
            bodies.put("query_to_xml format lock",
                    "select query_to_xml(format('select pg_%s(46)', 'advisory_lock'), true, false, '') as a");
        }
        bodies.put("pg_read_file", "select pg_read_file('postgresql.conf') as a");
        bodies.put("unicode pg_read_file", "select U&\"\\0070g_read_file\"('postgresql.conf') as a");
        bodies.put("pg_ls_dir", "select pg_ls_dir('.') as a");
        bodies.put("txid_current", "select txid_current() as a");
        bodies.put("unicode pg_current_xact_id", "select U&\"\\0070g_current_xact_id\"() as a");
        bodies.put("for share", "select * from public.t for share");
        bodies.put("for key share", "select * from public.t for key share");
        bodies.put("for update", "select * from public.t for update");
        bodies.put("set_config role", "select set_config('role', 'pg_monitor', false) as a");
        bodies.put("unicode set_config read write",
                "select U&\"\\0073et_config\"('default_transaction_read_only', 'off', false) as a");
        bodies.put("two statements", "select 1 as a; delete from public.t");
        bodies.put("commit", "commit");
        bodies.put("set transaction read write", "set transaction read write");
        bodies.put("call", "call p()");
        bodies.put("prepare", "prepare x as select 1");
        bodies.put("listen", "listen c");
        bodies.put("copy to program", "copy (select 1) to program 'touch /tmp/boundary-pwned'");
        bodies.put("explain analyze", "explain analyze delete from public.t");
        bodies.put("select into", "select * into public.t2 from public.t");
        bodies.put("data-modifying with", "with d as (delete from public.t returning *) select * from d");
        bodies.put("do block", "do $$ begin delete from public.t; end $$");
        bodies.put("close the subquery", "select 1 as a) as m; delete from public.t; select * from (select 1");
        bodies.put("close the subquery, union", "select 1 as a) as m union all select pg_advisory_lock(45) from (select 1");
        bodies.put("unterminated quote", "select 'a");
        bodies.put("unterminated comment", "select 1 as a /*");
        bodies.put("JDBC escape", "select {fn user()} as a");
        if (dblink) {
            bodies.put("dblink_exec", "select dblink_exec('dbname=" + DB + " user=postgres', 'delete from public.t') as a");
            bodies.put("unicode dblink_exec", "select U&\"\\0064blink_exec\"('dbname=" + DB
                    + " user=postgres', 'delete from public.t') as a");
        }
        return bodies;
    }

    /**
     * Bodies that assign a transaction id even in a read-only transaction (txid_current and
     * pg_current_xact_id): the server lets them through, only pgharvest's check refuses them.
     */
    private static final java.util.Set<String> BURNS_XIDS = java.util.Set.of("txid_current", "unicode pg_current_xact_id");

    @Test
    void aPgMonitorRoleLeavesNothingBehindEvenWithoutPgharvestsOwnCheck() throws Exception {
        List<String> escaped = runAll("bnd_monitor", sql -> Optional.empty());
        // Without the check, the server alone lets these run: the locks are released after the
        // tick, and the transaction ids used are the one thing that gets through.
        assertThat(escaped).containsExactlyInAnyOrder("unicode advisory lock", "plain advisory lock",
                "shared advisory lock, UESCAPE", "query_to_xml lock", "query_to_xml_and_xmlschema lock",
                "query_to_xml format lock",
                "txid_current", "unicode pg_current_xact_id", "set_config role", "unicode set_config read write");
    }

    @Test
    void aPgMonitorRoleWithPgharvestsCheck() throws Exception {
        List<String> ran = runAll("bnd_monitor", MetricSql::problem);
        // Only SQL assembled from pieces passes the check; the cleanup releases its lock.
        assertThat(ran).containsExactly("query_to_xml format lock");
    }

    @Test
    void aSuperuserAllowedByTheOperatorWithPgharvestsCheck() throws Exception {
        List<String> ran = runAll(TestPostgres.SUPERUSER, MetricSql::problem);
        assertThat(ran).isEmpty();
    }

    /**
     * Runs every body with a good metric in one pipeline, then alone, then the good metric alone;
     * checks the server after each.
     *
     * @return the bodies that ran without an error (the others were refused, by pgharvest or the server)
     */
    private List<String> runAll(String user, Function<String, Optional<String>> check) throws Exception {
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(5), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1), false, true));
        var ran = new ArrayList<String>();
        try (Connection session = opener.open(ConnectionString.parse(
                "postgresql://" + user + "@" + pg.host() + ":" + pg.port() + "/" + DB))) {
            int sessionPid = pid(session);
            var pipeline = new QueryPipeline(session, Duration.ofSeconds(5), Duration.ofMinutes(1), check);
            var good = new MetricQuery("good", GOOD, Duration.ofSeconds(5));
            for (var body : bodies(user.equals(TestPostgres.SUPERUSER)).entrySet()) {
                ServerState before = ServerState.read(observer);
                var bad = new MetricQuery("bad", body.getValue(), Duration.ofSeconds(5));
                boolean together = runs(() -> pipeline.run(List.of(good, bad)));
                boolean alone = runs(() -> pipeline.runAlone(bad));
                if (together || alone) {
                    ran.add(body.getKey());
                }
                List<FetchedRows> after = pipeline.run(List.of(good));
                assertThat(after.getFirst().rows().getFirst().values()).as(body.getKey())
                        .containsEntry("ro", "on").containsEntry("who", user).containsEntry("n", 3L);
                ServerState now = ServerState.read(observer);
                if (BURNS_XIDS.contains(body.getKey()) && ran.contains(body.getKey())) {
                    // The one effect the server lets through a read-only transaction: an xid assigned.
                    assertThat(now.withXid(before.nextXid())).as(body.getKey()).isEqualTo(before);
                } else {
                    assertThat(now).as(body.getKey()).isEqualTo(before);
                }
                assertThat(advisoryLocksOf(sessionPid)).as(body.getKey()).isZero();
                assertThat(victimQuery.isAlive()).as(body.getKey() + ": the other user's query still runs").isTrue();
            }
        }
        assertThat(java.nio.file.Path.of("/tmp/boundary-pwned")).doesNotExist();
        return ran;
    }

    private interface Run {
        void run() throws SQLException;
    }

    private static boolean runs(Run run) {
        try {
            run.run();
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    private static int pid(Connection connection) throws SQLException {
        try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("select pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static long advisoryLocksOf(int pid) throws SQLException {
        try (Statement st = observer.createStatement(); ResultSet rs = st.executeQuery(
                "select count(*) from pg_locks where locktype = 'advisory' and pid = " + pid)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** What a body must not change on the server. */
    private record ServerState(String rows, long advisoryLocks, long slots, String databaseStatsReset,
            String statementsReset, String confLoaded, String walFile, String nextXid, boolean victimActive) {

        ServerState withXid(String xid) {
            return new ServerState(rows, advisoryLocks, slots, databaseStatsReset, statementsReset, confLoaded, walFile,
                    xid, victimActive);
        }

        static ServerState read(Connection c) throws SQLException {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("""
                    select (select string_agg(id::text, ',' order by id) from public.t),
                           (select count(*) from pg_locks where locktype = 'advisory'),
                           (select count(*) from pg_replication_slots),
                           (select coalesce(stats_reset::text, '') from pg_stat_database where datname = current_database()),
                           (select stats_reset::text from pg_stat_statements_info),
                           pg_conf_load_time()::text,
                           pg_walfile_name(pg_current_wal_lsn()),
                           pg_snapshot_xmax(pg_current_snapshot())::text,
                           exists (select from pg_stat_activity where query = 'select pg_sleep(600)' and state = 'active')
                    """)) {
                rs.next();
                return new ServerState(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getString(4), rs.getString(5),
                        rs.getString(6), rs.getString(7), rs.getString(8), rs.getBoolean(9));
            }
        }
    }
}
