package io.pgharvest.pgwatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.PgharvestApplication;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * pgharvest.import.config-database: a pgwatch 3 configuration database (schema pgwatch, tables
 * metric, preset and source, with pgwatch's column names and types) imported at start.
 */
class ConfigDatabaseImportTest {

    private static final String DATABASE = "pgwatch_config_import";

    @Test
    void sourcesMetricsAndPresetsOfAPgwatchConfigurationDatabaseAreImported(@TempDir Path dir) {
        TestPostgres pg = TestPostgres.shared();
        pg.execute("postgres", "DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
        pg.createDatabase(DATABASE);
        pg.execute(DATABASE, """
                CREATE SCHEMA pgwatch;
                CREATE TABLE pgwatch.metric (name text PRIMARY KEY, sqls jsonb NOT NULL, init_sql text,
                    description text, node_status text, gauges text[], is_instance_level bool NOT NULL DEFAULT false,
                    storage_name text);
                CREATE TABLE pgwatch.preset (name text PRIMARY KEY, description text NOT NULL, metrics jsonb NOT NULL);
                CREATE TABLE pgwatch.source (name text PRIMARY KEY, connstr text NOT NULL,
                    is_superuser bool NOT NULL DEFAULT false, preset_config text DEFAULT 'basic', config jsonb,
                    is_enabled bool NOT NULL DEFAULT true, last_modified_on timestamptz NOT NULL DEFAULT now(),
                    dbtype text NOT NULL DEFAULT 'postgres', include_pattern text, exclude_pattern text,
                    custom_tags jsonb, "group" text NOT NULL DEFAULT 'default', host_config jsonb,
                    only_if_master bool NOT NULL DEFAULT false, preset_config_standby text, config_standby jsonb);
                INSERT INTO pgwatch.metric (name, sqls, description, gauges)
                    VALUES ('db_imported', '{"14": "select 1 as one"}', 'from the config database', '{one}');
                INSERT INTO pgwatch.preset VALUES ('imported_preset', 'two metrics', '{"db_imported": 30, "db_stats": 60}');
                INSERT INTO pgwatch.source (name, connstr, preset_config, "group", custom_tags)
                    VALUES ('orders', 'postgresql://monitor@db1.example.com/orders', 'imported_preset', 'eu',
                        '{"env": "prod"}');
                INSERT INTO pgwatch.source (name, connstr, preset_config, config, is_enabled, dbtype)
                    VALUES ('reports', 'postgresql://monitor@db2.example.com/reports', NULL,
                        '{"db_stats": 120}', false, 'postgres');
                """);

        try (ConfigurableApplicationContext app = start(dir, pg.connStr(DATABASE))) {
            ConfigSnapshot snapshot = app.getBean(ConfigStore.class).snapshot();
            Source orders = snapshot.sources().get("orders");
            assertThat(orders.group()).isEqualTo("eu");
            assertThat(orders.tags()).containsEntry("env", "prod");
            assertThat(snapshot.selectedMetrics(orders, false)).containsEntry("db_imported", 30)
                    .containsEntry("db_stats", 60);
            assertThat(snapshot.metrics().get("db_imported").description()).isEqualTo("from the config database");
            Source reports = snapshot.sources().get("reports");
            assertThat(reports.kind()).isEqualTo(SourceKind.fromLabel("postgres"));
            assertThat(reports.enabled()).isFalse();
            assertThat(reports.metrics()).containsEntry("db_stats", 120);
        }
    }

    @Test
    void anUnreachableConfigurationDatabaseStopsStartNamingThePropertyButNotThePassword(@TempDir Path dir) {
        String url = "postgresql://pgwatch:s3cret@127.0.0.1:1/pgwatch";
        assertThatThrownBy(() -> start(dir, url))
                .hasStackTraceContaining("pgharvest.import.config-database")
                .satisfies(e -> assertThat(stackText(e)).doesNotContain("s3cret"));
    }

    private static String stackText(Throwable e) {
        var text = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            text.append(t).append('\n');
        }
        return text.toString();
    }

    private static ConfigurableApplicationContext start(Path dir, String url) {
        return SpringApplication.run(PgharvestApplication.class, "--server.port=0", "--spring.main.banner-mode=off",
                "--pgharvest.data-dir=" + dir.resolve("data"), "--pgharvest.api.token=config-db-import-token-0123",
                "--pgharvest.import.config-database=" + url);
    }
}
