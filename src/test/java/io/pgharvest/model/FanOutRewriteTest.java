package io.pgharvest.model;

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
