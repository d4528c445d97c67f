package io.pgharvest.store.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.pooler.AdminConsoleDialect;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.testsupport.TestPgbouncer;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the pgbouncer metrics on a real pgbouncer's admin console with the simple query protocol,
 * one statement at a time, with pgharvest's console client, as sources of kind pgbouncer are
 * collected. Fails when pgbouncer is not installed (the test setup installs it).
 */
class PgbouncerCatalogTest {

    private static TestPgbouncer pgbouncer;
    private final CatalogUnderTest catalog = CatalogUnderTest.get();

    @BeforeAll
    static void startPgbouncer() throws SQLException {
        pgbouncer = TestPgbouncer.start(TestPostgres.shared());
        try (Connection client = DriverManager.getConnection(pgbouncer.jdbcUrl(TestPgbouncer.DATABASE));
             Statement statement = client.createStatement()) {
            statement.execute("select 1");
        }
    }

    @AfterAll
    static void stopPgbouncer() {
        if (pgbouncer != null) {
            pgbouncer.close();
        }
    }

    @Test
    void everyConsoleMetricReturnsAtLeastItsDeclaredColumns() throws IOException {
        List<MetricDefinition> console = catalog.metrics().values().stream()
                .filter(m -> CatalogUnderTest.isConsoleCommand(m) && m.name().startsWith("pgbouncer_")).toList();
        assertThat(console).extracting(MetricDefinition::name).containsExactlyInAnyOrder("pgbouncer_stats",
                "pgbouncer_pools", "pgbouncer_databases", "pgbouncer_clients", "pgbouncer_servers", "pgbouncer_lists");
        for (MetricDefinition metric : console) {
            List<Map<String, String>> rows = run(metric);
            assertThat(rows).as(metric.name() + " on " + pgbouncer.version()).isNotEmpty();
            assertThat(rows.getFirst().keySet()).as(metric.name() + " columns on " + pgbouncer.version())
                    .containsAll(catalog.declaredColumns(metric.name()));
        }
    }

    @Test
    void poolsAndDatabasesShowTheConfiguredDatabase() throws IOException {
        assertThat(run(metric("pgbouncer_databases")))
                .anySatisfy(row -> assertThat(row).containsEntry("name", TestPgbouncer.DATABASE)
                        .containsEntry("host", "127.0.0.1").containsEntry("database", "postgres"));
        assertThat(run(metric("pgbouncer_pools")))
                .anySatisfy(row -> assertThat(row).containsEntry("database", TestPgbouncer.DATABASE)
                        .containsEntry("user", TestPostgres.SUPERUSER).containsEntry("pool_mode", "transaction"));
    }

    @Test
    void statsCountTheQueriesThatWentThroughThePool() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long queries = 0;
        while (queries < 1 && System.nanoTime() < deadline) {
            queries = run(metric("pgbouncer_stats")).stream()
                    .filter(row -> TestPgbouncer.DATABASE.equals(row.get("database")))
                    .mapToLong(row -> Long.parseLong(row.get("total_query_count")))
                    .sum();
            if (queries < 1) {
                Thread.sleep(100); // pgbouncer publishes its statistics every stats_period (1 s here)
            }
        }
        assertThat(queries).isPositive();
    }

    private MetricDefinition metric(String name) {
        return catalog.metrics().get(name);
    }

    private static List<Map<String, String>> run(MetricDefinition metric) throws IOException {
        return pgbouncer.queryConsole(metric.sqlFor(AdminConsoleDialect.PGBOUNCER.sqlKey()).orElseThrow());
    }
}
