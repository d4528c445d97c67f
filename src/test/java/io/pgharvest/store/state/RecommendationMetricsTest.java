package io.pgharvest.store.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.ResultSetMapper;
import io.pgharvest.model.Measurement;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The built-in reco_* metrics (pgwatch's recommendation metrics, read by its Recommendations,
 * Index overview and Health check dashboards) find what they describe on a real server, write
 * pgwatch's table and keys, and stay silent where there is nothing to recommend. The server is
 * this test's own: the superuser and public-schema cases change cluster-wide state.
 */
class RecommendationMetricsTest {

    private static final CatalogUnderTest CATALOG = CatalogUnderTest.get();
    private static final String DB = "reco_findings";
    private static final String CLEAN_DB = "reco_clean";
    private static TestPostgres server;

    @BeforeAll
    static void startServerWithFindings() {
        server = TestPostgres.start(TestPostgres.SHARED_SETTINGS);
        server.createDatabase(DB);
        server.createDatabase(CLEAN_DB);
        server.execute(DB, """
                create table t (id int primary key, a int, sparse int);
                insert into t select g, g % 100, case when g % 10 = 0 then g end from generate_series(1, 100000) g;
                create index t_a on t (a);
                create index t_a_again on t (a);
                create index t_sparse on t (sparse);
                analyze t;
                create function open_door() returns int language sql security definer as 'select 1';
                create function closed_door() returns int language sql security definer
                  set search_path = pg_catalog, pg_temp as 'select 1';
                create function keep_row() returns trigger language plpgsql as 'begin return new; end';
                create trigger t_audit before insert on t for each row execute function keep_row();
                alter table t disable trigger t_audit;
                create view v1 as select id from t;
                create view v2 as select id from v1;
                create view v3 as select id from v2;
                create view v4 as select id from v3;
                grant create on schema public to public;
                """);
        // A failed CREATE INDEX CONCURRENTLY leaves an invalid index behind (t.a repeats).
        try {
            server.execute(DB, "create unique index concurrently t_a_unique on t (a)");
        } catch (IllegalStateException expected) {
            // the duplicate key error is the point
        }
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void everyRecoMetricWritesPgwatchsRecommendationsTableAndKeys() {
        List<String> reco = CATALOG.metrics().keySet().stream().filter(name -> name.startsWith("reco_")).toList();
        assertThat(reco).containsExactlyInAnyOrder("reco_default_public_schema", "reco_disabled_triggers",
                "reco_drop_index", "reco_nested_views", "reco_partial_index_candidates",
                "reco_sprocs_wo_search_path", "reco_superusers");
        for (String name : reco) {
            assertThat(CATALOG.metrics().get(name).effectiveStorageName()).as(name).isEqualTo("recommendations");
            assertThat(CATALOG.declaredColumns(name)).as(name).contains("tag_reco_topic", "tag_object_name");
        }
        assertThat(CATALOG.presets().get("recommendations").metrics()).containsOnlyKeys(reco.toArray(String[]::new));
        assertThat(CATALOG.presets().get("full").metrics()).containsKeys(reco.toArray(String[]::new));
    }

    @Test
    void dropIndexFindsInvalidUnusedAndDuplicateIndexes() throws SQLException {
        List<Map<String, Object>> rows = run("reco_drop_index", DB).stream()
                .map(RecommendationMetricsTest::columns).toList();

        assertThat(rows).allSatisfy(row -> assertThat(row).containsEntry("tag_reco_topic", "drop_index")
                .containsEntry("tag_table_full_name", "public.t"));
        assertThat(rows).filteredOn(row -> "invalid".equals(row.get("tag_issue_type")))
                .extracting(row -> row.get("tag_object_name")).containsExactly("public.t_a_unique");
        assertThat(rows).filteredOn(row -> "unused".equals(row.get("tag_issue_type")))
                .extracting(row -> row.get("tag_object_name"))
                .containsExactlyInAnyOrder("public.t_a", "public.t_a_again", "public.t_sparse");
        assertThat(rows).filteredOn(row -> "duplicate".equals(row.get("tag_issue_type"))).singleElement()
                .satisfies(row -> {
                    assertThat((String) row.get("tag_object_name")).contains("public.t_a", "public.t_a_again")
                            .doesNotContain("t_sparse", "t_pkey");
                    assertThat(row.get("duplicate_count")).isEqualTo(2L);
                    assertThat((String) row.get("index_def")).contains("(a)");
                });
        assertThat(run("reco_drop_index", CLEAN_DB)).isEmpty();
    }

    @Test
    void listShapedRecommendationsNameTheirObjectsAndCountThem() throws SQLException {
        assertThat(single("reco_disabled_triggers", DB)).containsEntry("tag_reco_topic", "disabled_triggers")
                .containsEntry("tag_object_name", "t t_audit").containsEntry("total_recommendations", 1L);
        // v4 sits on v3, v2 and v1: three levels of views below it; v3 has only two
        assertThat(single("reco_nested_views", DB)).containsEntry("tag_reco_topic", "overly_nested_views")
                .containsEntry("tag_object_name", "v4").containsEntry("total_recommendations", 1L);
        // sparse is NULL in 90 % of 100,000 rows; a is never NULL
        assertThat(single("reco_partial_index_candidates", DB))
                .containsEntry("tag_reco_topic", "partial_index_candidates")
                .containsEntry("tag_object_name", "t_sparse");
        assertThat(single("reco_sprocs_wo_search_path", DB)).containsEntry("tag_reco_topic", "sprocs_wo_search_path")
                .containsEntry("tag_object_name", "open_door()");
        assertThat(single("reco_default_public_schema", DB))
                .containsEntry("tag_reco_topic", "default_public_schema_privs")
                .containsEntry("tag_object_name", "public");
        for (String quiet : List.of("reco_disabled_triggers", "reco_nested_views", "reco_partial_index_candidates",
                "reco_sprocs_wo_search_path")) {
            assertThat(run(quiet, CLEAN_DB)).as(quiet + " on a database without findings").isEmpty();
        }
    }

    @Test
    void superusersAreReportedFromTenLoginSuperusersOn() throws SQLException {
        assertThat(run("reco_superusers", CLEAN_DB)).isEmpty();
        server.execute("postgres", """
                do $$ begin
                  for i in 1..9 loop execute format('create role reco_su_%s login superuser', i); end loop;
                end $$""");
        Map<String, Object> row = single("reco_superusers", CLEAN_DB);
        assertThat(row).containsEntry("tag_reco_topic", "superuser_count")
                .containsEntry("extra_info", "10 of 10 login roles are superusers");
        assertThat((String) row.get("tag_object_name")).contains("postgres", "reco_su_1", "reco_su_9");
    }

    /** The metric's one row: its tags and values in one map, tags under their column names (tag_...). */
    private static Map<String, Object> single(String metric, String database) throws SQLException {
        List<Measurement.Row> rows = run(metric, database);
        assertThat(rows).as(metric).hasSize(1);
        return columns(rows.getFirst());
    }

    private static Map<String, Object> columns(Measurement.Row row) {
        var columns = new LinkedHashMap<String, Object>(row.values());
        row.tags().forEach((tag, value) -> columns.put("tag_" + tag, value));
        return columns;
    }

    /** The metric's rows as the engine reads them (in a read-only transaction; tags without tag_). */
    private static List<Measurement.Row> run(String metric, String database) throws SQLException {
        String sql = CATALOG.metrics().get(metric).sqlFor(server.majorVersion()).orElseThrow();
        try (Connection connection = server.connect(database)) {
            connection.setReadOnly(true);
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
                return ResultSetMapper.read(rs).rows();
            } finally {
                connection.rollback();
            }
        }
    }
}
