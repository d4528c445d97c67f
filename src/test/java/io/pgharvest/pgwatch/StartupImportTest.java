package io.pgharvest.pgwatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.PgharvestApplication;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.pgwatch.format.ConfigFileException;
import io.pgharvest.store.ConfigStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** pgharvest.import.metrics and pgharvest.import.sources, read at every start. */
class StartupImportTest {

    private static final String METRICS = """
            metrics:
              startup_metric:
                sqls:
                  14: select 1 as one
            presets:
              startup_preset:
                metrics:
                  startup_metric: 60
                  db_stats: 60
            """;
    private static final String SOURCES = """
            - name: startup_db
              conn_str: postgresql://monitor@db1.example.com/orders
              preset_metrics: startup_preset
              is_enabled: true
            """;

    @Test
    void filesNamedByTheImportPropertiesAreImportedAtStartAndAgainWithoutChange(@TempDir Path dir) throws IOException {
        Path metricsDir = Files.createDirectories(dir.resolve("metrics.d"));
        Files.writeString(metricsDir.resolve("custom.yaml"), METRICS);
        Path sources = Files.writeString(dir.resolve("sources.yaml"), SOURCES);
        Path dataDir = dir.resolve("data");

        long firstIndex;
        try (var app = start(dataDir, metricsDir, sources)) {
            ConfigSnapshot snapshot = app.getBean(ConfigStore.class).snapshot();
            assertThat(snapshot.sources()).containsKey("startup_db");
            assertThat(snapshot.selectedMetrics(snapshot.sources().get("startup_db"), false))
                    .containsEntry("startup_metric", 60).containsEntry("db_stats", 60);
            firstIndex = snapshot.index();
        }
        try (var app = start(dataDir, metricsDir, sources)) {
            assertThat(app.getBean(ConfigStore.class).snapshot().index()).isEqualTo(firstIndex);
        }
    }

    @Test
    void anInvalidImportStopsStartAndChangesNothing(@TempDir Path dir) throws IOException {
        Path metrics = Files.writeString(dir.resolve("metrics.yaml"), METRICS);
        Path sources = Files.writeString(dir.resolve("sources.yaml"), SOURCES + """
                - name: startup_bad
                  conn_str: postgresql://monitor@db1.example.com/orders
                  preset_metrics: no_such_preset
                  is_enabled: true
                """);
        Path dataDir = dir.resolve("data");

        assertThatThrownBy(() -> start(dataDir, metrics, sources))
                .isInstanceOf(ImportRejectedException.class)
                .satisfies(e -> assertThat(((ImportRejectedException) e).problems())
                        .extracting(p -> p.field() + ": " + p.message())
                        .containsExactly("sources[startup_bad].preset_metrics: unknown preset 'no_such_preset'"));
        assertThat(dataDir.resolve("sources.yaml")).doesNotExist();
        assertThat(dataDir.resolve("metrics.yaml")).doesNotExist();
    }

    @Test
    void aFileThatDoesNotParseStopsStartWithItsOwnErrorAndChangesNothing(@TempDir Path dir) throws IOException {
        // Read ahead on another thread while the context starts: the failure still reaches start-up as thrown.
        Path sources = Files.writeString(dir.resolve("sources.yaml"), "- name: [unclosed\n");
        Path dataDir = dir.resolve("data");

        assertThatThrownBy(() -> start(dataDir, null, sources))
                .isInstanceOf(ConfigFileException.class)
                .hasMessageContaining(sources.toString());
        assertThat(dataDir.resolve("sources.yaml")).doesNotExist();
    }

    private static ConfigurableApplicationContext start(Path dataDir, Path metrics, Path sources) {
        var args = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
                "--pgharvest.data-dir=" + dataDir, "--pgharvest.api.token=startup-import-token-0123"));
        if (metrics != null) {
            args.add("--pgharvest.import.metrics=" + metrics);
        }
        args.add("--pgharvest.import.sources=" + sources);
        return SpringApplication.run(PgharvestApplication.class, args.toArray(String[]::new));
    }
}
