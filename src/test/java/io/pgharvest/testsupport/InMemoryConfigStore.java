package io.pgharvest.testsupport;

import io.pgharvest.metric.MetricDefinition;
import io.pgharvest.metric.Preset;
import io.pgharvest.source.Source;
import io.pgharvest.store.ChangeNotifier;
import io.pgharvest.store.ConfigSnapshot;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.StoreTable;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/** A configuration store in memory, for engine tests that do not need files or the API. */
public final class InMemoryConfigStore implements ConfigStore {

    private final ReentrantLock lock = new ReentrantLock();
    private final ChangeNotifier all = new ChangeNotifier(1);
    private final Map<StoreTable, ChangeNotifier> tables = new EnumMap<>(StoreTable.class);
    private volatile ConfigSnapshot snapshot = new ConfigSnapshot(1, Map.of(), Map.of(), Map.of(), Map.of());

    public InMemoryConfigStore() {
        for (StoreTable table : StoreTable.values()) {
            tables.put(table, new ChangeNotifier(1));
        }
    }

    @Override
    public ConfigSnapshot snapshot() {
        return snapshot;
    }

    @Override
    public ChangeNotifier changes(StoreTable table) {
        return tables.get(table);
    }

    @Override
    public ChangeNotifier changes() {
        return all;
    }

    public void putMetric(MetricDefinition metric) {
        update(StoreTable.METRICS, metric.name(), (s, m, p) -> m.put(metric.name(), metric));
    }

    public void putPreset(Preset preset) {
        update(StoreTable.PRESETS, preset.name(), (s, m, p) -> p.put(preset.name(), preset));
    }

    public void putSource(Source source) {
        update(StoreTable.SOURCES, source.name(), (s, m, p) -> s.put(source.name(), source));
    }

    public void removeSource(String name) {
        update(StoreTable.SOURCES, name, (s, m, p) -> s.remove(name));
    }

    private interface Change {
        void apply(Map<String, Source> sources, Map<String, MetricDefinition> metrics, Map<String, Preset> presets);
    }

    private void update(StoreTable table, String item, Change change) {
        lock.lock();
        try {
            ConfigSnapshot current = snapshot;
            var sources = new HashMap<>(current.sources());
            var metrics = new HashMap<>(current.metrics());
            var presets = new HashMap<>(current.presets());
            change.apply(sources, metrics, presets);
            long index = current.index() + 1;
            var indexes = new EnumMap<StoreTable, Map<String, Long>>(StoreTable.class);
            current.modifyIndexes().forEach((t, m) -> indexes.put(t, new HashMap<>(m)));
            indexes.get(table).put(item, index);
            snapshot = new ConfigSnapshot(index, sources, metrics, presets, indexes);
            tables.get(table).advanceTo(index);
            all.advanceTo(index);
        } finally {
            lock.unlock();
        }
    }
}
