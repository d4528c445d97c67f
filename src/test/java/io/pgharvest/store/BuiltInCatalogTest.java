package io.pgharvest.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.metric.MetricDefinition;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The catalog shipped in the jar is valid and every query runs on the test server's version. */
class BuiltInCatalogTest {

    private final BuiltInCatalog catalog = BuiltInCatalog.load(new PgwatchYaml());

    @Test
    void theCatalogHasTheStandardPresets() {
        assertThat(catalog.presets()).containsKeys("minimal", "basic", "standard", "exhaustive");
        assertThat(catalog.metrics()).hasSizeGreaterThanOrEqualTo(10);
        assertThat(catalog.presets().get("exhaustive").metrics().keySet()).isEqualTo(catalog.metrics().keySet());
    }

    @Test
    void everyBuiltInMetricAndPresetPassesValidation() {
        var validator = new ConfigValidator();
        var snapshot = new ConfigSnapshot(0, Map.of(), catalog.metrics(), catalog.presets(), Map.of());

        catalog.metrics().values().forEach(m -> assertThat(validator.checkMetric(m)).as(m.name()).isEmpty());
        catalog.presets().values().forEach(p -> assertThat(validator.checkPreset(p, snapshot)).as(p.name()).isEmpty());
    }

    @Test
    void everyBuiltInQueryRunsOnTheTestServer() throws Exception {
        TestPostgres postgres = TestPostgres.shared();
        postgres.createDatabase("catalog_test");
        postgres.execute("catalog_test", "create table if not exists catalog_probe (id int primary key)");
        List<String> failures = new ArrayList<>();
        try (Connection connection = postgres.connect("catalog_test")) {
            for (MetricDefinition metric : catalog.metrics().values()) {
                String sql = metric.sqlFor(postgres.majorVersion()).orElseThrow();
                try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
                    assertColumnsAreNamed(metric, rows.getMetaData());
                } catch (Exception e) {
                    failures.add(metric.name() + " on " + postgres.majorVersion() + ": " + e.getMessage());
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    private static void assertColumnsAreNamed(MetricDefinition metric, ResultSetMetaData columns) throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= columns.getColumnCount(); i++) {
            names.add(columns.getColumnLabel(i));
        }
        assertThat(names).as(metric.name()).contains("epoch_ns").doesNotContain("?column?");
        metric.gauges().stream().filter(g -> !g.equals("*"))
                .forEach(gauge -> assertThat(names).as(metric.name() + " gauges").contains(gauge));
    }
}
