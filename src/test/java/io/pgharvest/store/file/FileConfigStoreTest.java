package io.pgharvest.store.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.InvalidConfigException;
import io.pgharvest.store.Stored;
import io.pgharvest.store.state.BuiltInItemException;
import io.pgharvest.store.state.DuplicateItemException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("fast")
class FileConfigStoreTest {

    @TempDir
    Path dataDir;

    private FileConfigStore open() {
        var properties = new HarvestProperties(dataDir, new HarvestProperties.Api(null), Duration.ofSeconds(5));
        return new FileConfigStore(new DataDirectory(properties));
    }

    private static Source source(String name) {
        return new Source(name, "postgresql://u:pw@db/" + name, null, null, true, "basic", Map.of("db_stats", 30),
                null, Map.of(), Map.of("env", "test"), false, null, null);
    }

    @Test
    void aWriteThatCannotReachTheDiskChangesNothingInMemory() throws Exception {
        FileConfigStore store = open();
        store.createSource(source("before"));
        ConfigSnapshot before = store.snapshot();
        long tableIndex = store.changes(StoreTable.SOURCES).index();
        Path sources = dataDir.resolve("sources.yaml");
        Files.delete(sources);
        Files.createDirectories(sources.resolve("blocker"));

        assertThatThrownBy(() -> store.createSource(source("after")))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("sources.yaml");

        assertThat(store.snapshot()).isSameAs(before);
        assertThat(store.changes(StoreTable.SOURCES).index()).isEqualTo(tableIndex);
        assertThat(store.changes().index()).isEqualTo(before.index());
    }

    @Test
    void aRefusedWriteLeavesFilesAndIndexesAlone() throws Exception {
        FileConfigStore store = open();
        store.createSource(source("one"));
        byte[] sources = Files.readAllBytes(dataDir.resolve("sources.yaml"));
        byte[] index = Files.readAllBytes(dataDir.resolve("store-index.yaml"));
        long storeIndex = store.changes().index();

        assertThatThrownBy(() -> store.createSource(source("one"))).isInstanceOf(DuplicateItemException.class);
        assertThatThrownBy(() -> store.putPreset(new Preset("p", null, Map.of("nope", 1))))
                .isInstanceOf(InvalidConfigException.class);
        assertThatThrownBy(() -> store.deleteMetric("db_stats")).isInstanceOf(BuiltInItemException.class);

        assertThat(Files.readAllBytes(dataDir.resolve("sources.yaml"))).isEqualTo(sources);
        assertThat(Files.readAllBytes(dataDir.resolve("store-index.yaml"))).isEqualTo(index);
        assertThat(store.changes().index()).isEqualTo(storeIndex);
    }

    @Test
    void everyWriteAdvancesTheStoreIndexByOneAndOnlyItsTable() {
        FileConfigStore store = open();
        long storeIndex = store.changes().index();
        long metricsIndex = store.changes(StoreTable.METRICS).index();

        Stored<Source> stored = store.createSource(source("a"));

        assertThat(stored.modifyIndex()).isEqualTo(storeIndex + 1);
        assertThat(store.changes().index()).isEqualTo(storeIndex + 1);
        assertThat(store.changes(StoreTable.SOURCES).index()).isEqualTo(storeIndex + 1);
        assertThat(store.changes(StoreTable.METRICS).index()).isEqualTo(metricsIndex);
        assertThat(store.snapshot().modifyIndex(StoreTable.SOURCES, "a")).isEqualTo(storeIndex + 1);
    }

    @Test
    void theFilesUsePgwatchsFormatAndReadBackEqual() throws Exception {
        FileConfigStore store = open();
        // Every field a postgres source may have (database name patterns belong to discovery sources).
        var full = new Source("full", "host=db port=6432 dbname=app user=u password=pw", SourceKind.fromLabel("postgres"), "eu", false,
                "basic", Map.of("locks", 0, "db_size", 600), "minimal", Map.of("backends", 30),
                Map.of("env", "prod", "team", "db"), true, null, null);
        var metric = new MetricDefinition("my_metric", "mine", Map.of(14, "select 1 as x\nfrom pg_class", 17, "select 2 as x"),
                List.of("x"), true, NodeStatus.STANDBY, "my_table", "select 0", 7);
        store.createMetric(metric);
        store.createPreset(new Preset("my_preset", "a preset", Map.of("my_metric", 10, "db_stats", 60)));
        store.createSource(full);

        String sourcesYaml = Files.readString(dataDir.resolve("sources.yaml"));
        String metricsYaml = Files.readString(dataDir.resolve("metrics.yaml"));
        assertThat(sourcesYaml).contains("- name: full", "conn_str: ", "kind: postgres", "is_enabled: false",
                "preset_metrics: basic", "custom_metrics:", "preset_metrics_standby: minimal",
                "custom_metrics_standby:", "custom_tags:", "only_if_master: true");
        assertThat(metricsYaml).contains("metrics:\n  my_metric:\n", "    sqls:\n      14: |", "      17: select 2 as x",
                "is_instance_level: true", "node_status: standby", "storage_name: my_table", "init_sql: select 0",
                "statement_timeout_seconds: 7", "presets:\n  my_preset:\n");

        FileConfigStore reopened = open();
        assertThat(reopened.snapshot().sources().get("full")).isEqualTo(full);
        assertThat(reopened.snapshot().metrics().get("my_metric")).isEqualTo(metric);
        assertThat(reopened.snapshot().presets().get("my_preset").metrics()).containsEntry("my_metric", 10);
        assertThat(reopened.changes().index()).isEqualTo(store.changes().index());
    }

    @Test
    void pgwatchStyleFilesWithUnknownKeysAndFloatIntervalsAreRead() throws Exception {
        Files.writeString(dataDir.resolve("sources.yaml"), """
                - name: from-pgwatch
                  conn_str: postgresql://pgwatch:secret@db:5432/app
                  kind: postgres
                  preset_metrics: basic
                  custom_metrics:
                    db_stats: 30.0
                  is_enabled: true
                  host_config: {}
                  is_superuser: false
                """);

        Source source = open().snapshot().sources().get("from-pgwatch");

        assertThat(source.metrics()).containsEntry("db_stats", 30);
        assertThat(source.preset()).isEqualTo("basic");
    }

    @Test
    void itemsWithBrokenReferencesStillLoad() throws Exception {
        Files.writeString(dataDir.resolve("sources.yaml"), """
                - name: dangling
                  conn_str: postgresql://db/app
                  preset_metrics: removed_preset
                """);

        FileConfigStore store = open();

        assertThat(store.snapshot().sources()).containsKey("dangling");
        assertThat(store.snapshot().selectedMetrics(store.snapshot().sources().get("dangling"), false)).isEmpty();
    }

    @Test
    void strayTempFilesOfACrashedWriteAreRemovedAtStartUp() throws Exception {
        Path stray = Files.writeString(dataDir.resolve(".sources.yaml.123.pgharvest-tmp"), "- name: half");

        open();

        assertThat(stray).doesNotExist();
    }
}
