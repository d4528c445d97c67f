package io.pgharvest.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * An immutable view of the whole configuration at one store index. Metrics and presets are the
 * built-in catalog merged with the operator's own (which win on equal names).
 *
 * @param index the store-wide modification index this view was taken at
 * @param modifyIndexes per table, the index at which each item last changed
 */
public record ConfigSnapshot(
        long index,
        Map<String, Source> sources,
        Map<String, MetricDefinition> metrics,
        Map<String, Preset> presets,
        Map<StoreTable, Map<String, Long>> modifyIndexes) {

    public ConfigSnapshot {
        sources = sorted(sources);
        metrics = sorted(metrics);
        presets = sorted(presets);
        var copy = new java.util.EnumMap<StoreTable, Map<String, Long>>(StoreTable.class);
        for (StoreTable table : StoreTable.values()) {
            copy.put(table, sorted(modifyIndexes == null ? null : modifyIndexes.get(table)));
        }
        modifyIndexes = Collections.unmodifiableMap(copy);
    }

    public static ConfigSnapshot empty() {
        return new ConfigSnapshot(0, Map.of(), Map.of(), Map.of(), Map.of());
    }

    /** The index at which {@code name} in {@code table} last changed, or 0 if unknown. */
    public long modifyIndex(StoreTable table, String name) {
        return modifyIndexes.get(table).getOrDefault(name, 0L);
    }

    /**
     * The metrics a source collects with their intervals in seconds: the preset's map, then the
     * source's own entries on top, entries with interval 0 removed. For a server in recovery the
     * standby selection applies when the source defines one. Unknown names are kept out: the
     * store rejects them on write, so they only appear when a metric was deleted underneath.
     */
    public Map<String, Integer> selectedMetrics(Source source, boolean inRecovery) {
        boolean standby = inRecovery && source.hasStandbySelection();
        String presetName = standby ? source.standbyPreset() : source.preset();
        Map<String, Integer> own = standby ? source.standbyMetrics() : source.metrics();
        var result = new LinkedHashMap<String, Integer>();
        Preset preset = presetName == null ? null : presets.get(presetName);
        if (preset != null) {
            result.putAll(preset.metrics());
        }
        result.putAll(own);
        result.values().removeIf(interval -> interval == null || interval <= 0);
        result.keySet().retainAll(metrics.keySet());
        return Collections.unmodifiableMap(result);
    }

    private static <V> Map<String, V> sorted(Map<String, V> map) {
        return map == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(map));
    }
}
