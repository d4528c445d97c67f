package io.pgharvest.store.state;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ItemOrigin;
import io.pgharvest.store.StoreIndexFile.ItemStamp;
import io.pgharvest.store.StoreIndexFile;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything the file store holds at one index, immutable: the operator's items (what the files
 * contain), the built-ins, per-item stamps, per-table indexes, and the merged snapshot readers see.
 * A write derives a new state with {@link #with}; the old one stays valid for readers.
 */
public record StoreState(
        long index,
        BuiltInCatalog builtIns,
        Map<String, Source> sources,
        Map<String, MetricDefinition> userMetrics,
        Map<String, Preset> userPresets,
        Map<StoreTable, Long> tableIndexes,
        Map<StoreTable, Map<String, ItemStamp>> stamps,
        ConfigSnapshot snapshot) {

    public static StoreState of(long index, BuiltInCatalog builtIns, Map<String, Source> sources,
            Map<String, MetricDefinition> userMetrics, Map<String, Preset> userPresets,
            Map<StoreTable, Long> tableIndexes, Map<StoreTable, Map<String, ItemStamp>> stamps) {
        var merged = merge(builtIns.metrics(), userMetrics);
        var mergedPresets = merge(builtIns.presets(), userPresets);
        var modifyIndexes = new EnumMap<StoreTable, Map<String, Long>>(StoreTable.class);
        var stampCopy = new EnumMap<StoreTable, Map<String, ItemStamp>>(StoreTable.class);
        var tableCopy = new EnumMap<StoreTable, Long>(StoreTable.class);
        for (StoreTable table : StoreTable.values()) {
            Map<String, ItemStamp> tableStamps = stamps.getOrDefault(table, Map.of());
            stampCopy.put(table, Collections.unmodifiableMap(new TreeMap<>(tableStamps)));
            var indexes = new HashMap<String, Long>();
            tableStamps.forEach((name, stamp) -> indexes.put(name, stamp.modifyIndex()));
            modifyIndexes.put(table, indexes);
            tableCopy.put(table, tableIndexes.getOrDefault(table, 0L));
        }
        var snapshot = new ConfigSnapshot(index, sources, merged, mergedPresets, modifyIndexes);
        return new StoreState(index, builtIns, snapshot.sources(), sorted(userMetrics), sorted(userPresets),
                Collections.unmodifiableMap(tableCopy), Collections.unmodifiableMap(stampCopy), snapshot);
    }

    /**
     * The state after one item of {@code table} was set to {@code userItem} (null: removed from
     * the operator's items) at {@code newIndex}. {@code stamp} is the item's new stamp, or null
     * when no item of that name remains (not even a built-in).
     */
    StoreState with(StoreTable table, String name, Object userItem, ItemStamp stamp, long newIndex) {
        return withAll(List.of(new ItemPut(table, name, userItem, stamp)), newIndex);
    }

    /**
     * The state after all of {@code puts} (each as in {@link #with}), built once: a batch of
     * hundreds of items (an import) built item by item copied and sorted the whole store per item.
     */
    StoreState withAll(List<ItemPut> puts, long newIndex) {
        var newSources = new HashMap<>(sources);
        var newMetrics = new HashMap<>(userMetrics);
        var newPresets = new HashMap<>(userPresets);
        var newStamps = new EnumMap<StoreTable, Map<String, ItemStamp>>(StoreTable.class);
        stamps.forEach((table, tableStamps) -> newStamps.put(table, new HashMap<>(tableStamps)));
        var newTableIndexes = new EnumMap<>(tableIndexes);
        for (ItemPut change : puts) {
            switch (change.table()) {
                case SOURCES -> put(newSources, change.name(), (Source) change.userItem());
                case METRICS -> put(newMetrics, change.name(), (MetricDefinition) change.userItem());
                case PRESETS -> put(newPresets, change.name(), (Preset) change.userItem());
            }
            put(newStamps.computeIfAbsent(change.table(), t -> new HashMap<>()), change.name(), change.stamp());
            newTableIndexes.put(change.table(), newIndex);
        }
        return of(newIndex, builtIns, newSources, newMetrics, newPresets, newTableIndexes, newStamps);
    }

    /** One item set by {@link #withAll}: {@code userItem} null removes it, {@code stamp} null when none remains. */
    record ItemPut(StoreTable table, String name, Object userItem, ItemStamp stamp) {
    }

    /** Where {@code name} in {@code table} comes from, or null when it does not exist. */
    ItemOrigin origin(StoreTable table, String name) {
        boolean user = switch (table) {
            case SOURCES -> sources.containsKey(name);
            case METRICS -> userMetrics.containsKey(name);
            case PRESETS -> userPresets.containsKey(name);
        };
        boolean builtIn = switch (table) {
            case SOURCES -> false;
            case METRICS -> builtIns.metrics().containsKey(name);
            case PRESETS -> builtIns.presets().containsKey(name);
        };
        return user ? (builtIn ? ItemOrigin.OVERRIDE : ItemOrigin.USER) : (builtIn ? ItemOrigin.BUILT_IN : null);
    }

    /** The content of {@code store-index.yaml} for this state. */
    public StoreIndexFile indexFile() {
        var tables = new TreeMap<String, Long>();
        var items = new TreeMap<String, Map<String, ItemStamp>>();
        for (StoreTable table : StoreTable.values()) {
            tables.put(key(table), tableIndexes.get(table));
            items.put(key(table), stamps.get(table));
        }
        return new StoreIndexFile(index, tables, items);
    }

    public static String key(StoreTable table) {
        return table.name().toLowerCase(Locale.ROOT);
    }

    private static <V> void put(Map<String, V> map, String name, V value) {
        if (value == null) {
            map.remove(name);
        } else {
            map.put(name, value);
        }
    }

    private static <V> Map<String, V> merge(Map<String, V> builtIn, Map<String, V> user) {
        var merged = new HashMap<>(builtIn);
        merged.putAll(user);
        return merged;
    }

    private static <V> Map<String, V> sorted(Map<String, V> map) {
        return Collections.unmodifiableMap(new TreeMap<>(map));
    }
}
