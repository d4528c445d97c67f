package io.pgharvest.store.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.AppliedChanges;
import io.pgharvest.store.ConfigChanges;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.ItemOrigin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ConfigStore.putAll on the file store: one index step, all or nothing, also when the disk fails. */
@Tag("fast")
class FileConfigStorePutAllTest {

    @TempDir
    Path dataDir;

    private FileConfigStore store() {
        var properties = new HarvestProperties(dataDir, new HarvestProperties.Api("put-all-token-0123456789"),
                Duration.ofSeconds(1));
        return new FileConfigStore(new DataDirectory(properties));
    }

    private static MetricDefinition metric(String name) {
        return new MetricDefinition(name, "test", Map.of(14, "select 1 as one"), List.of(), false, null, null, null, null);
    }

    private static Source source(String name, String preset) {
        return new Source(name, "postgresql://u@db1/orders", null, null, true, preset, Map.of(), null, Map.of(),
                Map.of(), false, null, null);
    }

    @Test
    void allItemsAreWrittenInOneIndexStepAndASourceMayUseAPresetOfTheSameBatch() throws IOException {
        FileConfigStore store = store();
        long before = store.snapshot().index();

        AppliedChanges applied = store.putAll(new ConfigChanges(List.of(source("s1", "p1")), List.of(metric("m1")),
                List.of(new Preset("p1", null, Map.of("m1", 30)))), false);

        assertThat(applied.index()).isEqualTo(before + 1);
        assertThat(store.snapshot().index()).isEqualTo(before + 1);
        assertThat(store.changes(StoreTable.SOURCES).index()).isEqualTo(before + 1);
        assertThat(store.changes(StoreTable.PRESETS).index()).isEqualTo(before + 1);
        assertThat(applied.count(AppliedChanges.Action.CREATED)).isEqualTo(3);
        assertThat(Files.readString(dataDir.resolve("sources.yaml"))).contains("name: s1");
        assertThat(Files.readString(dataDir.resolve("metrics.yaml"))).contains("m1:").contains("p1:");
    }

    @Test
    void aBuiltInItemGivenUnchangedStaysBuiltIn() {
        FileConfigStore store = store();
        MetricDefinition builtIn = store.snapshot().metrics().get("db_size");

        AppliedChanges applied = store.putAll(new ConfigChanges(null, List.of(builtIn), null), false);

        assertThat(applied.items()).containsExactly(
                new AppliedChanges.ItemChange(StoreTable.METRICS, "db_size", AppliedChanges.Action.UNCHANGED));
        assertThat(store.origin(StoreTable.METRICS, "db_size")).contains(ItemOrigin.BUILT_IN);
    }

    @Test
    void aFailedWriteOfTheSecondFileRestoresTheFirstAndPublishesNothing() throws IOException {
        FileConfigStore store = store();
        store.putMetric(metric("kept"));
        String metricsBefore = Files.readString(dataDir.resolve("metrics.yaml"));
        ConfigSnapshot before = store.snapshot();
        // a non-empty directory where sources.yaml belongs: the rename onto it fails
        Files.createDirectories(dataDir.resolve("sources.yaml").resolve("blocker"));

        assertThatThrownBy(() -> store.putAll(new ConfigChanges(List.of(source("s2", null)), List.of(metric("m2")),
                null), false))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("sources.yaml").hasMessageContaining("nothing was changed");

        assertThat(Files.readString(dataDir.resolve("metrics.yaml"))).isEqualTo(metricsBefore);
        assertThat(store.snapshot()).isEqualTo(before);
        assertThat(store.changes().index()).isEqualTo(before.index());
    }
}
