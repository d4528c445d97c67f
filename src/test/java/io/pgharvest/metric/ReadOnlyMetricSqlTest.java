package io.pgharvest.metric;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Metric SQL that would write, outlive its metric or leave the read-only transaction is refused
 * when it is defined, with the reason, and nothing is stored. The bodies are the ones that ran
 * on a superuser source before the boundary existed (issue 15).
 */
class ReadOnlyMetricSqlTest extends ApiTestBase {

    static Stream<Arguments> refusedBodies() {
        return Stream.of(
                Arguments.of("copy (select 1) to program 'touch pwned'", "not COPY"),
                Arguments.of("set transaction read write; delete from t where id = 1 returning 1 as a", "exactly one statement"),
                Arguments.of("commit; begin transaction read write; insert into t values (1); commit; select 1 as a",
                        "exactly one statement"),
                Arguments.of("select set_config('default_transaction_read_only','off',false) as a", "set_config()"),
                Arguments.of("set role plain", "not SET"),
                Arguments.of("select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid()",
                        "pg_terminate_backend()"),
                Arguments.of("select pg_catalog.pg_cancel_backend(pid) as a from pg_stat_activity", "pg_cancel_backend()"),
                Arguments.of("select \"pg_terminate_backend\"(1) as a", "pg_terminate_backend()"),
                Arguments.of("with d as (delete from t returning 1) select count(*) as a from d", "'DELETE'"),
                Arguments.of("select 1 as a into new_table", "'INTO'"),
                Arguments.of("select pg_advisory_lock(1) as a", "pg_advisory_lock()"),
                Arguments.of("select pg_reload_conf() as a", "pg_reload_conf()"),
                Arguments.of("select lo_export(1, '/tmp/x') as a", "lo_export()"),
                Arguments.of("select * from dblink('host=evil', 'select 1') as t(a int)", "dblink()"),
                Arguments.of("select pg_stat_reset() as a", "pg_stat_reset()"),
                Arguments.of("do $$ begin perform 1; end $$", "not DO"),
                Arguments.of("explain analyze delete from t", "not EXPLAIN"),
                Arguments.of("select 1 as a; select 2 as b", "exactly one statement"),
                Arguments.of("select 'never closed", "never closed"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedBodies")
    void metricSqlThatDoesMoreThanReadIsRefusedWithTheReason(String sql, String reason) {
        long indexBefore = api().get("/api/v1/metrics").index();

        var refused = api().post("/api/v1/metrics", Map.of("name", "m_escape", "sqls", Map.of("14", sql)));

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("sqls.14");
        assertThat(refused.json().get("errors").get(0).get("message").asString()).contains(reason);
        assertThat(api().get("/api/v1/metrics").index()).isEqualTo(indexBefore);
        assertThat(api().get("/api/v1/metrics/m_escape").status()).isEqualTo(404);
    }

    static Stream<String> acceptedBodies() {
        return Stream.of("select 1 as a", "  (select 1 as a) union all (select 2)", "with x as (select 1 as a) select a from x",
                "values (1)", "table pg_database", "show server_version",
                "select 'commit; delete from t' as a -- ; drop table t", "select $q$; insert into t$q$ as a;",
                "/* set_config( */ select 1 as a", "select n_tup_upd, \"update\" from (select 1 as n_tup_upd, 2 as \"update\") s",
                "select e'it''s; \\' delete' as a");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("acceptedBodies")
    void readingSqlIsAcceptedWhateverItsCommentsAndConstantsSay(String sql) {
        var created = api().post("/api/v1/metrics", Map.of("name", "m_reads", "sqls", Map.of("14", sql),
                "gauges", List.of("*")));

        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(api().delete("/api/v1/metrics/m_reads").status()).isEqualTo(204);
    }
}
