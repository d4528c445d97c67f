package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.testsupport.JdbcSqlReader;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * query_stats on every supported major version, as a role with pg_monitor only, on the primary and
 * on a hot standby: the columns each extension version has are read under query_stats' names, and
 * the change of a statement run a known number of times is that number.
 */
class QueryStatsVersionsTest {

    private static final String DB = "insights_versions";

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {14, 15, 16, 17, 18})
    void readsTheChangesOfEachVersionOnPrimaryAndStandby(int major) throws Exception {
        try (TestPostgres primary = TestPostgres.start(major, Map.of("shared_preload_libraries", "pg_stat_statements",
                "wal_level", "replica", "hot_standby", "on"))) {
            primary.createDatabase(DB);
            primary.execute(DB, "create extension pg_stat_statements");
            primary.execute(DB, "create table t (id int primary key)");
            primary.execute(DB, "insert into t select generate_series(1, 10)");
            primary.execute("postgres", "create role insights_monitor login in role pg_monitor");
            assertCountsExactly(primary, major);
            try (TestPostgres standby = primary.startStandby("insights_standby")) {
                primary.awaitReplayedOn(standby, Duration.ofSeconds(60));
                assertCountsExactly(standby, major);
            }
        }
    }

    private static void assertCountsExactly(TestPostgres server, int major) throws Exception {
        try (Connection work = server.connect(DB); Connection monitor = DriverManager.getConnection(
                server.jdbcUrl(DB).replace("user=postgres", "user=insights_monitor"))) {
            var collector = new QueryStatsCollector(50);
            assertThat(collector.collect(target(server, monitor))).isEmpty();
            try (PreparedStatement st = work.prepareStatement("select id from t where id = ?")) {
                for (int i = 0; i < 11; i++) {
                    st.setInt(1, i);
                    st.executeQuery().close();
                }
            }
            List<Measurement.Row> rows = collector.collect(target(server, monitor));
            String queryId = server.queryString(DB, "select queryid::text from pg_stat_statements"
                    + " where query = 'select id from t where id = $1'");
            Measurement.Row row = rows.stream().filter(r -> queryId.equals(r.tags().get("queryid"))).findFirst()
                    .orElseThrow();
            assertThat(row.values()).containsEntry("calls", 11L).containsEntry("rows", 10L)
                    .containsKeys("total_exec_time", "shared_blks_hit", "shared_blk_read_time", "wal_bytes");
            assertThat(row.values().containsKey("jit_generation_time")).as("JIT times from 15").isEqualTo(major >= 15);
            assertThat(row.values().containsKey("local_blk_read_time")).as("local I/O times from 17")
                    .isEqualTo(major >= 17);
            assertThat(row.tags()).containsEntry("dbname", DB).containsEntry("user", "postgres")
                    .containsEntry("toplevel", "true");
        }
    }

    private static NativeTarget target(TestPostgres server, Connection connection) throws SQLException {
        return new NativeTarget("test", DB, server.majorVersion(), ":0", true, new JdbcSqlReader(connection),
                Duration.ofSeconds(60), Instant.now(), null);
    }
}
