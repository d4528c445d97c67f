package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * A database owner cannot make the built-in metrics read objects of their own: pgharvest's
 * sessions pin {@code search_path} to {@code pg_catalog, pg_temp} in the startup packet, which
 * wins over the owner's {@code ALTER DATABASE ... SET search_path}. The owner's shadowing
 * {@code public.pg_stat_database} view (over a function of theirs that forges
 * {@code xact_commit}) is what an ordinary session of the same role reads, and what db_stats
 * must not read, as a pg_monitor role and as a superuser allowed by the operator.
 */
class PinnedSearchPathTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final String DB = "shadowed_db";
    private static final long FORGED = 424242;
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    @BeforeAll
    static void aDatabaseOwnerShadowsPgStatDatabase() {
        pg.createDatabase(DB);
        pg.execute(DB, """
                do $$ begin
                  if not exists (select from pg_roles where rolname = 'shadow_owner') then
                    create role shadow_owner login;
                  end if;
                  if not exists (select from pg_roles where rolname = 'shadow_monitor') then
                    create role shadow_monitor login; grant pg_monitor to shadow_monitor;
                  end if;
                end $$;
                alter database shadowed_db owner to shadow_owner;
                alter schema public owner to shadow_owner;
                set role shadow_owner;
                create or replace function public.forged_stats() returns setof pg_catalog.pg_stat_database
                language plpgsql as $f$
                declare r pg_catalog.pg_stat_database;
                begin
                  for r in select * from pg_catalog.pg_stat_database loop
                    r.xact_commit := 424242;
                    return next r;
                  end loop;
                end $f$;
                create or replace view public.pg_stat_database as select * from public.forged_stats();
                grant select on public.pg_stat_database to public;
                alter database shadowed_db set search_path = public, pg_catalog;
                reset role;
                """);
    }

    @Test
    void theOwnersViewIsWhatAnOrdinarySessionReads() throws Exception {
        // the forgery works on a session pgharvest did not open: the tests below can fail
        try (Connection c = pg.connect(DB); Statement s = c.createStatement()) {
            s.execute("set role shadow_monitor");
            try (ResultSet rs = s.executeQuery("select xact_commit from pg_stat_database where datname = current_database()")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(FORGED);
            }
        }
    }

    @Test
    void dbStatsReadsTheCatalogAsAPgMonitorRole() throws Exception {
        assertThat(collectDbStats("shadow_monitor")).isNotEqualTo(FORGED).isPositive();
    }

    @Test
    void dbStatsReadsTheCatalogAsASuperuserAllowedByTheOperator() throws Exception {
        assertThat(collectDbStats(TestPostgres.SUPERUSER)).isNotEqualTo(FORGED).isPositive();
    }

    /** One tick of the built-in db_stats, collected by a reaper logged in as {@code user}. */
    private static long collectDbStats(String user) throws Exception {
        var kit = new ReaperTestKit(); // its sessions allow superusers, as the operator's opt-in does
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        String connStr = "postgresql://" + user + "@" + pg.host() + ":" + pg.port() + "/" + DB;
        var reaper = new SourceReaper(ReaperTestKit.config(source("shadowed", connStr, Map.of("db_stats", 10)),
                List.of(metric("db_stats", catalogSql("db_stats", pg.majorVersion())))), kit.context, timer);
        ReaperTestKit.runFirstTick(reaper, timer);
        assertThat(reaper.status().metrics()).singleElement()
                .satisfies(m -> assertThat(m.lastError()).isNull());
        Measurement dbStats = kit.publisher.of("shadowed", "db_stats").getFirst();
        return ((Number) dbStats.rows().getFirst().values().get("xact_commit")).longValue();
    }

    private static String catalogSql(String metric, int major) {
        try (InputStream in = PinnedSearchPathTest.class.getClassLoader().getResourceAsStream("catalog/metrics.yaml")) {
            JsonNode sqls = new YAMLMapper().readTree(in).path("metrics").path(metric).path("sqls");
            var byVersion = new TreeMap<Integer, String>();
            sqls.properties().forEach(e -> byVersion.put(Integer.parseInt(e.getKey()), e.getValue().asString()));
            return byVersion.floorEntry(major).getValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
