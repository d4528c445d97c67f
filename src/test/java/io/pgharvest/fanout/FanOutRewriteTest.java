package io.pgharvest.fanout;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricRules;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.sql.MetricSql;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Imported metrics get an instance-wide variant only where the rewrite provably returns the same rows. */
class FanOutRewriteTest {

    private static final String CONFLICTS = """
            select /* imported */
              (extract(epoch from now()) * 1e9)::int8 as epoch_ns,
              confl_lock,
              confl_snapshot,
              extract(epoch from now() - now())::int8 as zero_s
            FROM
              pg_stat_database_conflicts
            WHERE
              datname = current_database()""";

    @Test
    void aPerDatabaseRowOfPgStatDatabaseRewritesAndReturnsTheSameRowForEachDatabase() throws SQLException {
        String variant = FanOutRewrite.instanceWide(CONFLICTS).orElseThrow();
        assertThat(variant).contains("fan_out_dbname").contains("where datname is not null");

        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("rewrite_a");
        pg.createDatabase("rewrite_b");
        List<Map<String, Object>> own = rows(pg, "rewrite_a", CONFLICTS);
        List<Map<String, Object>> fromOther = rows(pg, "rewrite_b", variant).stream()
                .filter(r -> "rewrite_a".equals(r.get("fan_out_dbname"))).toList();
        assertThat(fromOther).hasSize(1);
        var withoutKey = new LinkedHashMap<>(fromOther.getFirst());
        withoutKey.remove("fan_out_dbname");
        withoutKey.remove("epoch_ns");
        var expected = new LinkedHashMap<>(own.getFirst());
        expected.remove("epoch_ns");
        assertThat(withoutKey).isEqualTo(expected);
    }

    @Test
    void queriesThatReadMoreThanTheViewsRowAreLeftToRunPerDatabase() {
        assertThat(FanOutRewrite.instanceWide("""
                select numbackends, (select count(*) from pg_index where not indisvalid) as invalid_indexes
                from pg_stat_database where datname = current_database()""")).isEmpty();
        assertThat(FanOutRewrite.instanceWide("""
                select count(*) as active from pg_stat_activity where datname = current_database()""")).isEmpty();
        assertThat(FanOutRewrite.instanceWide("""
                select pg_database_size(current_database()) as size_b, numbackends
                from pg_stat_database where datname = current_database()""")).isEmpty();
        assertThat(FanOutRewrite.instanceWide("""
                select numbackends from pg_stat_database where datname = current_database() limit 1""")).isEmpty();
    }

    @Test
    void aMetricFansOutOnlyWhenEveryVersionRewrites() {
        var both = new MetricDefinition("conflicts", "", Map.of(14, CONFLICTS, 16, CONFLICTS), List.of(), false,
                NodeStatus.STANDBY, null, null, null);
        assertThat(FanOutRewrite.withDerivedVariants(both).instanceSqls()).containsOnlyKeys(14, 16);
        assertThat(MetricRules.check(FanOutRewrite.withDerivedVariants(both))).isEmpty();

        var mixed = new MetricDefinition("mixed", "", Map.of(14, CONFLICTS, 16, "select 1 as one"), List.of(), false,
                NodeStatus.ANY, null, null, null);
        assertThat(FanOutRewrite.withDerivedVariants(mixed).instanceSqls()).isEmpty();
    }

    @Test
    void queriesOfInstanceWideViewsGetTheLateralVariant() {
        for (String sql : List.of("""
                with q as (
                  select queryid, sum(calls) as calls from pg_stat_statements
                  where dbid = (select oid from pg_database where datname = current_database())
                    and not upper(query::varchar(20)) like any (array['SET %', E'BEGIN\\_%'])
                  group by queryid)
                select queryid::text as tag_queryid, calls from q order by calls desc limit 10;""", """
                select s.state as tag_state, count(*) filter (where s.wait_event is not null) as waiting,
                  max(extract(epoch from now() - s.query_start))::float8 as longest_s,
                  current_setting('max_connections')::int as max_connections
                from pg_catalog.pg_stat_activity s, pg_stat_ssl ssl
                where s.pid = ssl.pid and s.datname = current_database() and s.pid <> pg_backend_pid()
                  and s.state is distinct from 'idle' group by 1""", """
                select kind as tag_kind, (select count(*) from pg_locks l
                  where l.locktype = kind and l.pid != pg_backend_pid()
                    and l.database = (select oid from pg_database where datname = current_database())) as n
                from unnest('{advisory, relation}'::text[]) kind""", """
                select slot_name::text as tag_slot, total_bytes from pg_stat_replication_slots""", """
                select count(*) as ready from pg_ls_archive_statusdir() a where name ~ '[0-9A-F]{24}.ready'""")) {
            String variant = LateralFanOut.of(sql).variant();
            assertThat(variant).as(sql).startsWith("select fan_out_db.datname::text as fan_out_dbname")
                    .doesNotContain("current_database()) ")
                    .doesNotContainPattern("(?<!then )pg_backend_pid\\(\\)(?! else)");
            assertThat(MetricSql.problem(variant)).isEmpty();
        }
    }

    @Test
    void queriesThatSeeTheirDatabaseOrSessionStayPerDatabaseWithTheReason() {
        assertThat(LateralFanOut.of("select count(*) from pg_class where relkind = 'r'").reason())
                .contains("reads pg_class");
        assertThat(LateralFanOut.of("""
                select count(*) from pg_stat_activity a
                where datname = current_database() and pid <> pg_backend_pid()
                  and exists (select 1 from pg_stat_user_tables)""").reason()).contains("pg_stat_user_tables");
        assertThat(LateralFanOut.of("""
                select l.relation::regclass::text as tag_table from pg_locks l
                where l.pid <> pg_backend_pid()""").reason()).contains("regclass");
        assertThat(LateralFanOut.of("select setting from pg_settings where name = 'work_mem'").reason())
                .contains("pg_settings");
        assertThat(LateralFanOut.of("""
                select current_setting('work_mem') as wm, count(*) from pg_stat_database""").reason())
                .contains("current_setting 'work_mem'");
        assertThat(LateralFanOut.of("""
                select count(*) from pg_stat_activity where datname = current_database()""").reason())
                .contains("own session");
        assertThat(LateralFanOut.of("select to_regclass('x') is null, count(*) from pg_stat_database").reason())
                .contains("to_regclass");
        assertThat(LateralFanOut.of("select count(*) from public.orders, pg_stat_database").reason())
                .contains("outside pg_catalog");
        // the extension's view through its schema (sessions search pg_catalog only) fans out
        assertThat(LateralFanOut.of("select count(*) from public.pg_stat_statements").reason()).isNull();
        assertThat(LateralFanOut.of("select count(*) from information_schema.tables").reason())
                .contains("outside pg_catalog");
        assertThat(LateralFanOut.of("select current_user, count(*) from pg_stat_database").reason())
                .contains("current_user");
        assertThat(LateralFanOut.of("select 1 as one").reason()).contains("no instance-wide view");
        assertThat(LateralFanOut.of("select 1 as fan_out_dbname from pg_stat_database").reason())
                .contains("reserves");
        assertThat(LateralFanOut.of("select 1 from pg_stat_database; select 2").reason()).contains("several");
        assertThat(LateralFanOut.of("select 'unclosed from pg_database").reason()).contains("not closed");
        // text that looks like a table inside a string or a comment is not read
        assertThat(LateralFanOut.of("""
                select 'from pg_class' as t, count(*) -- from pg_class
                from pg_stat_database where datname = current_database()""").variant()).isNotNull();
    }

    @Test
    void anImportedMetricFansOutWithANoteOrSaysWhyNot() {
        var activity = new MetricDefinition("activity", "", Map.of(14, """
                select count(*) as n from pg_stat_activity
                where datname = current_database() and pid != pg_backend_pid()"""), List.of(), false,
                NodeStatus.ANY, null, "create extension if not exists pg_stat_statements", null);
        var derived = FanOutRewrite.derive(activity);
        assertThat(derived.metric().instanceSqls()).containsOnlyKeys(14);
        assertThat(derived.note()).hasValueSatisfying(n -> assertThat(n).startsWith("fans out"));
        assertThat(MetricRules.check(derived.metric())).isEmpty();

        var tables = new MetricDefinition("tables", "", Map.of(14, """
                select current_database() as db, count(*) from pg_class"""), List.of(), false,
                NodeStatus.ANY, null, null, null);
        assertThat(FanOutRewrite.derive(tables).metric().instanceSqls()).isEmpty();
        assertThat(FanOutRewrite.derive(tables).note()).hasValue(
                "runs per database: its query of version 14 reads pg_class, which is not shared by the instance's"
                        + " databases");
        var plain = new MetricDefinition("plain", "", Map.of(14, "select 1 as x"), List.of(), false,
                NodeStatus.ANY, null, null, null);
        assertThat(FanOutRewrite.derive(plain).note()).isEmpty();
    }

    @Test
    void theLateralVariantReturnsEachDatabasesOwnRows() throws SQLException {
        String own = """
                select count(*) as sessions, (select count(*) from pg_stat_activity
                  where pid <> pg_backend_pid() and application_name = 'lateral-fixture') as everywhere
                from pg_stat_activity
                where datname = current_database() and application_name = 'lateral-fixture'
                  and pid <> pg_backend_pid()""";
        String variant = LateralFanOut.of(own).variant();
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("lateral_a");
        pg.createDatabase("lateral_b");
        var fixtures = new ArrayList<Connection>();
        try {
            for (String db : List.of("lateral_a", "lateral_b", "lateral_b")) {
                fixtures.add(java.sql.DriverManager.getConnection(pg.jdbcUrl(db) + "&ApplicationName=lateral-fixture"));
            }
            var all = rows(pg, "lateral_a", variant);
            for (String db : List.of("lateral_a", "lateral_b")) {
                var theirs = all.stream().filter(r -> db.equals(r.get("fan_out_dbname"))).toList();
                assertThat(theirs).hasSize(1);
                var row = new LinkedHashMap<>(theirs.getFirst());
                row.remove("fan_out_dbname");
                assertThat(row).as(db).isEqualTo(rows(pg, db, own).getFirst());
            }
        } finally {
            for (Connection c : fixtures) {
                c.close();
            }
        }
    }

    private static List<Map<String, Object>> rows(TestPostgres pg, String db, String sql) throws SQLException {
        try (Connection c = pg.connect(db); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            ResultSetMetaData meta = rs.getMetaData();
            var rows = new ArrayList<Map<String, Object>>();
            while (rs.next()) {
                var row = new LinkedHashMap<String, Object>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    row.put(meta.getColumnLabel(i), rs.getObject(i));
                }
                rows.add(row);
            }
            return rows;
        }
    }
}
