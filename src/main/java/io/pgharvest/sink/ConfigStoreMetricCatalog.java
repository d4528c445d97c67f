package io.pgharvest.sink;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.store.ConfigStore;
import java.util.Optional;

/** {@link MetricCatalog} over the config store's current snapshot, so edited metrics apply at once. */
final class ConfigStoreMetricCatalog implements MetricCatalog {

    private final ConfigStore store;

    ConfigStoreMetricCatalog(ConfigStore store) {
        this.store = store;
    }

    @Override
    public Optional<MetricDefinition> byStorageName(String storageName) {
        var metrics = store.snapshot().metrics();
        MetricDefinition byName = metrics.get(storageName);
        if (byName != null && byName.effectiveStorageName().equals(storageName)) {
            return Optional.of(byName);
        }
        return metrics.values().stream().filter(m -> m.effectiveStorageName().equals(storageName)).findFirst();
    }
}
