package io.pgharvest.sink.dispatch;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Source;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.store.ConfigStore;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@link MetricCatalog} over the config store's current snapshot, so edited metrics apply at once.
 * Without a store (a context that has none) it knows no metric and no selection.
 */
final class ConfigStoreMetricCatalog implements MetricCatalog {

    /** What every source writes besides its selection (the reaper's reachability heartbeat). */
    static final String INSTANCE_UP = "instance_up";

    private final Supplier<ConfigStore> store;

    ConfigStoreMetricCatalog(Supplier<ConfigStore> store) {
        this.store = store;
    }

    @Override
    public Optional<MetricDefinition> byStorageName(String storageName) {
        ConfigStore current = store.get();
        if (current == null) {
            return Optional.empty();
        }
        var metrics = current.snapshot().metrics();
        MetricDefinition byName = metrics.get(storageName);
        if (byName != null && byName.effectiveStorageName().equals(storageName)) {
            return Optional.of(byName);
        }
        return metrics.values().stream().filter(m -> m.effectiveStorageName().equals(storageName)).findFirst();
    }

    @Override
    public Set<String> selectedStorageNames() {
        ConfigStore current = store.get();
        if (current == null) {
            return Set.of();
        }
        ConfigSnapshot snapshot = current.snapshot();
        var names = new TreeSet<String>();
        for (Source source : snapshot.sources().values()) {
            if (!source.enabled()) {
                continue;
            }
            names.add(INSTANCE_UP);
            var selected = new java.util.HashSet<>(snapshot.selectedMetrics(source, false).keySet());
            selected.addAll(snapshot.selectedMetrics(source, true).keySet());
            selected.forEach(metric -> names.add(snapshot.metrics().get(metric).effectiveStorageName()));
        }
        return names;
    }

    @Override
    public long awaitSelectionChange(long seen, Duration timeout) throws InterruptedException {
        ConfigStore current = store.get();
        if (current == null) {
            return MetricCatalog.super.awaitSelectionChange(seen, timeout);
        }
        return current.changes().awaitAbove(seen, timeout);
    }
}
