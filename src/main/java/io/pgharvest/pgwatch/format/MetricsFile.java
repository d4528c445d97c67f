package io.pgharvest.pgwatch.format;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/** The whole of pgwatch's {@code metrics.yaml}: {@code metrics:} and {@code presets:} maps by name. */
public record MetricsFile(Map<String, MetricEntry> metrics, Map<String, PresetEntry> presets) {

    /** What a key without a body ({@code db_stats:}) reads as; validation then reports what is missing. */
    private static final MetricEntry EMPTY_METRIC = new MetricEntry(null, null, null, null, null, null, null, null, null, null);
    private static final PresetEntry EMPTY_PRESET = new PresetEntry(null, null);

    public MetricsFile {
        metrics = sorted(metrics);
        presets = sorted(presets);
    }

    public static MetricsFile of(Map<String, MetricDefinition> metrics, Map<String, Preset> presets) {
        return new MetricsFile(mapValues(metrics, MetricEntry::of), mapValues(presets, PresetEntry::of));
    }

    public Map<String, MetricDefinition> definitions() {
        return mapEntries(metrics, (name, entry) -> (entry == null ? EMPTY_METRIC : entry).toDefinition(name));
    }

    public Map<String, Preset> presetDefinitions() {
        return mapEntries(presets, (name, entry) -> (entry == null ? EMPTY_PRESET : entry).toPreset(name));
    }

    private static <A, B> Map<String, B> mapValues(Map<String, A> map, Function<A, B> convert) {
        return mapEntries(map, (name, value) -> convert.apply(value));
    }

    private static <A, B> Map<String, B> mapEntries(Map<String, A> map, BiFunction<String, A, B> convert) {
        var result = new TreeMap<String, B>();
        map.forEach((name, value) -> result.put(name, convert.apply(name, value)));
        return Collections.unmodifiableMap(result);
    }

    private static <V> Map<String, V> sorted(Map<String, V> map) {
        return map == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(map));
    }
}
