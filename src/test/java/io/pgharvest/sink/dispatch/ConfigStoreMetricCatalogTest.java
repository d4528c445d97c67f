package io.pgharvest.sink.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Source;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.TestStores;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class ConfigStoreMetricCatalogTest {

    @Test
    void theSelectionIsWhatEnabledSourcesSelectUnderTheirStorageNamesPlusInstanceUp(@TempDir Path dir)
            throws InterruptedException {
        ConfigStore store = TestStores.inDirectory(dir);
        var catalog = new ConfigStoreMetricCatalog(() -> store);
        assertThat(catalog.selectedStorageNames()).isEmpty();
        long seen = catalog.awaitSelectionChange(-1, Duration.ZERO);

        store.putMetric(new MetricDefinition("sel_stored_elsewhere", null, Map.of(14, "select 1 as x"), List.of(),
                false, null, "sel_storage", null, null));
        store.putSource(new Source("sel-on", "postgresql://u@h/db", null, null, true, null,
                Map.of("sel_stored_elsewhere", 60, "db_stats", 60), null, Map.of("wal", 60), null, false, null, null));
        store.putSource(new Source("sel-off", "postgresql://u@h/db", null, null, false, null,
                Map.of("backends", 60), null, null, null, false, null, null));

        assertThat(catalog.awaitSelectionChange(seen, Duration.ofSeconds(5))).isGreaterThan(seen);
        assertThat(catalog.selectedStorageNames())
                .containsExactlyInAnyOrder("instance_up", "sel_storage", "db_stats", "wal");
    }
}
