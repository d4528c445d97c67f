package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.store.PgwatchImport;
import io.pgharvest.store.PgwatchImportReader;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A pgwatch metric that names pg_stat_statements without a schema, imported from a metrics.yaml,
 * reads the extension's view wherever the extension was created, although sessions search
 * pg_catalog only; a database owner's view of the same name in a schema on their search path is
 * never read instead; a database without the extension gets the server's clear error.
 */
class ExtensionSchemaTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
    private static final long FORGED = 424242;

    /** Written for this test in pgwatch's format: a statement top list read from the extension's view. */
    private static final String METRICS_YAML = """
            metrics:
              statement_calls:
                description: top statements by calls, pgwatch style
                sqls:
                  13: |
                    select /* test */ (extract(epoch from now()) * 1e9)::int8 as epoch_ns,
                      queryid::text as tag_queryid, calls::int8 as calls
                    from
                      pg_stat_statements s
                    where dbid = (select oid from pg_database where datname = current_database())
                    order by calls desc
                    limit 20
                gauges: ['*']
            """;

    @BeforeAll
    static void databasesWithTheExtensionInPublicInAnotherSchemaAndNowhere() {
        pg.execute("postgres", """
                do $$ begin
                  if not exists (select from pg_roles where rolname = 'ext_owner') then create role ext_owner login; end if;
                  if not exists (select from pg_roles where rolname = 'ext_monitor') then
                    create role ext_monitor login; grant pg_monitor to ext_monitor;
                  end if;
                end $$""");
        for (String db : List.of("ext_public_db", "ext_tools_db", "ext_none_db")) {
            pg.createDatabase(db);
            pg.execute(db, "alter database " + db + " owner to ext_owner; alter schema public owner to ext_owner");
        }
        pg.execute("ext_public_db", "create extension if not exists pg_stat_statements schema public");
        pg.execute("ext_tools_db", """
                create schema if not exists tools;
                grant usage on schema tools to public;
                create extension if not exists pg_stat_statements schema tools;
                set role ext_owner;
                create or replace function public.forged_statements() returns table (dbid oid, queryid int8, calls int8)
                  language sql as $f$ select oid, 1, 424242 from pg_catalog.pg_database $f$;
                create or replace view public.pg_stat_statements as select * from public.forged_statements();
                grant select on public.pg_stat_statements to public;
                alter database ext_tools_db set search_path = public, tools, pg_catalog;
                reset role""");
        for (String db : List.of("ext_public_db", "ext_tools_db")) {
            pg.execute(db, "select 1 + 1; select 2 + 2"); // statements of this database for the top list
        }
    }

    private static MetricDefinition imported() {
        PgwatchImport read = new PgwatchImportReader(name -> null)
                .read(METRICS_YAML.getBytes(StandardCharsets.UTF_8), "metrics.yaml");
        assertThat(read.problems()).isEmpty();
        assertThat(read.notices()).anySatisfy(n -> {
            assertThat(n.field()).isEqualTo("metrics.statement_calls.sqls");
            assertThat(n.message()).contains("pg_stat_statements").contains("schema");
        });
        return read.changes().metrics().getFirst();
    }

    @Test
    void theMetricReadsTheExtensionInPublic() throws Exception {
        List<Measurement> rows = collect("ext_public_db");
        assertThat(rows).isNotEmpty();
        assertThat(rows.getFirst().rows()).isNotEmpty()
                .allSatisfy(r -> assertThat(((Number) r.values().get("calls")).longValue()).isPositive());
    }

    @Test
    void theMetricReadsTheExtensionInAnotherSchemaAndNeverTheOwnersViewOfThatName() throws Exception {
        // an ordinary session of the owner's database reads the forged view: the check below can fail
        assertThat(pg.queryString("ext_tools_db", "select max(calls)::text from pg_stat_statements"))
                .isEqualTo(Long.toString(FORGED));

        List<Measurement> rows = collect("ext_tools_db");
        assertThat(rows).isNotEmpty();
        assertThat(rows.getFirst().rows()).isNotEmpty()
                .allSatisfy(r -> assertThat(((Number) r.values().get("calls")).longValue()).isNotEqualTo(FORGED));
    }

    @Test
    void aDatabaseWithoutTheExtensionGetsAClearError() throws Exception {
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var reaper = new SourceReaper(ReaperTestKit.config(source("ext_none", connStr("ext_none_db"),
                Map.of("statement_calls", 10)), List.of(imported())), kit.context, timer);
        ReaperTestKit.runFirstTick(reaper, timer);
        assertThat(reaper.status().metrics()).singleElement().extracting(MetricRuntimeStatus::lastError)
                .asString().contains("relation \"pg_stat_statements\" does not exist");
        assertThat(kit.publisher.of("ext_none", "statement_calls")).isEmpty();
    }

    /** One tick of the imported metric on {@code db}, as the pg_monitor role. */
    private static List<Measurement> collect(String db) throws Exception {
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var reaper = new SourceReaper(ReaperTestKit.config(source(db, connStr(db), Map.of("statement_calls", 10)),
                List.of(imported())), kit.context, timer);
        ReaperTestKit.runFirstTick(reaper, timer);
        assertThat(reaper.status().metrics()).singleElement()
                .satisfies(m -> assertThat(m.lastError()).isNull());
        return kit.publisher.of(db, "statement_calls");
    }

    private static String connStr(String db) {
        return "postgresql://ext_monitor@" + pg.host() + ":" + pg.port() + "/" + db;
    }
}
