package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.fanout.FanOutRewrite;
import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A session qualifies its metrics' unqualified names of extension objects with the schema they are
 * in (contrib's pg_buffercache and pgstattuple in a schema of their own), reads the extensions again
 * when they change, and gives a database owner no object of theirs to put in the extension's place:
 * not by renaming the extension's schema and creating another of its name, not by an overload.
 */
class ExtensionObjectsSessionTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "ext_session_db";
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @BeforeAll
    static void extensionsInASchemaTheDatabaseOwnerOwns() {
        pg.execute("postgres", """
                do $$ begin
                  if not exists (select from pg_roles where rolname = 'ext_owner') then create role ext_owner login; end if;
                  if not exists (select from pg_roles where rolname = 'ext_monitor') then
                    create role ext_monitor login; grant pg_monitor to ext_monitor;
                  end if;
                end $$""");
        pg.createDatabase(DB);
        pg.execute(DB, """
                alter database ext_session_db owner to ext_owner;
                alter schema public owner to ext_owner;
                create schema if not exists contrib_x authorization ext_owner;
                grant usage on schema contrib_x to public;
                create extension if not exists pg_stat_statements schema contrib_x;
                create extension if not exists pg_buffercache schema contrib_x;
                create table if not exists public.items as select i from generate_series(1, 1000) i;
                grant select on public.items to ext_monitor;
                set role ext_owner;
                create or replace function contrib_x.pg_relpages(n int) returns int8 language sql as $f$ select 424242::int8 $f$;
                reset role""");
        pg.execute(DB, "create extension if not exists pgstattuple schema contrib_x");
        pg.execute(DB, "select 3 + 3");
    }

    private static PostgresSession open() throws SQLException {
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), TIMEOUT, Duration.ofSeconds(1),
                Duration.ofMinutes(1)));
        return PostgresSession.open(opener, ConnectionString.parse(
                "postgresql://ext_monitor@" + pg.host() + ":" + pg.port() + "/" + DB), Instant.now());
    }

    private static MetricQuery query(String name, String sql) {
        return new MetricQuery(name, sql, TIMEOUT);
    }

    private static final MetricQuery BUFFERS = query("buffers",
            "select count(*)::int8 as buffers from pg_buffercache b where b.reldatabase is not null");
    private static final MetricQuery BLOAT = query("bloat", """
            select st.approx_tuple_count::int8 as tuples from pg_class c
            join lateral pgstattuple_approx(c.oid) st on true where c.relname = 'items'""");
    private static final MetricQuery CALLS = query("calls",
            "select coalesce(sum(calls), 0)::int8 as calls, count(*)::int8 as statements from pg_stat_statements"
                    + " where dbid = (select oid from pg_database where datname = current_database())");

    @Test
    void contribExtensionsInTheirOwnSchemaAreReadInOneRoundTrip() throws Exception {
        try (PostgresSession session = open()) {
            List<FetchedRows> results = session.run(List.of(BUFFERS, BLOAT, CALLS));
            assertThat(((Number) results.get(0).rows().getFirst().values().get("buffers")).longValue()).isPositive();
            assertThat(results.get(1).rows().getFirst().values().get("tuples")).isEqualTo(1000L);
            assertThat(((Number) results.get(2).rows().getFirst().values().get("calls")).longValue()).isPositive();
        }
    }

    @Test
    void anOverloadOfTheOwnersLeavesTheNameUnqualifiedAndTheirFunctionUncalled() throws Exception {
        try (PostgresSession session = open()) {
            assertThatThrownBy(() -> session.runAlone(query("pages", "select pg_relpages('public.items') as pages")))
                    .isInstanceOf(SQLException.class).hasMessageContaining("pg_relpages").hasMessageContaining("does not exist");
        }
    }

    @Test
    void theInstanceWideVariantOfAStatementMetricIsQualifiedOnTheFetchingSession() throws Exception {
        var metric = new MetricDefinition("calls", "calls", Map.of(13, CALLS.sql()), List.of("*"), false,
                NodeStatus.ANY, null, null, null);
        String variant = FanOutRewrite.derive(metric).metric().instanceSqls().get(13);
        assertThat(variant).contains("from pg_stat_statements");
        try (PostgresSession session = open()) {
            FetchedRows rows = session.run(List.of(query("calls", variant))).getFirst();
            assertThat(rows.rows()).anySatisfy(r -> {
                assertThat(r.values().get("fan_out_dbname")).isEqualTo(DB);
                assertThat(((Number) r.values().get("calls")).longValue()).isPositive();
            });
        }
    }

    @Test
    void aRenamedSchemaWithAForgedOneInItsPlaceIsNoticedBeforeTheMetricIsParsed() throws Exception {
        String db = "ext_swap_db";
        pg.createDatabase(db);
        pg.execute(db, """
                alter database ext_swap_db owner to ext_owner;
                create schema if not exists stats authorization ext_owner;
                grant usage on schema stats to public;
                create extension if not exists pg_stat_statements schema stats""");
        pg.execute(db, "select 4 + 4");
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), TIMEOUT, Duration.ofSeconds(1),
                Duration.ofMinutes(1)));
        try (PostgresSession session = PostgresSession.open(opener, ConnectionString.parse(
                "postgresql://ext_monitor@" + pg.host() + ":" + pg.port() + "/" + db), Instant.now())) {
            assertThat(calls(session)).isPositive().isNotEqualTo(424242L);
            pg.execute(db, """
                    set role ext_owner;
                    alter schema stats rename to stats_moved;
                    create schema stats;
                    grant usage on schema stats to public;
                    create function stats.forged() returns table (dbid oid, calls int8)
                      language sql as $f$ select oid, 424242::int8 from pg_catalog.pg_database $f$;
                    create view stats.pg_stat_statements as select * from stats.forged();
                    grant select on stats.pg_stat_statements to public;
                    reset role""");
            assertThat(calls(session)).isPositive().isNotEqualTo(424242L);
        }
    }

    @Test
    void anExtensionCreatedLaterIsReadAfterTheNextFactsRefresh() throws Exception {
        String db = "ext_later_db";
        pg.createDatabase(db);
        pg.execute(db, "drop extension if exists pg_buffercache");
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), TIMEOUT, Duration.ofSeconds(1),
                Duration.ofMinutes(1)));
        try (PostgresSession session = PostgresSession.open(opener, ConnectionString.parse(
                "postgresql://ext_monitor@" + pg.host() + ":" + pg.port() + "/" + db), Instant.now())) {
            assertThatThrownBy(() -> session.runAlone(BUFFERS)).hasMessageContaining("does not exist");
            pg.execute(db, "create schema if not exists later; grant usage on schema later to public;"
                    + " create extension pg_buffercache schema later");
            session.refreshFacts(Instant.now());
            assertThat(session.runAlone(BUFFERS).rows().rows()).singleElement()
                    .satisfies(r -> assertThat(((Number) r.values().get("buffers")).longValue()).isPositive());
        }
    }

    private static long calls(PostgresSession session) throws SQLException {
        return ((Number) session.run(List.of(CALLS)).getFirst().rows().getFirst().values().get("calls")).longValue();
    }
}
