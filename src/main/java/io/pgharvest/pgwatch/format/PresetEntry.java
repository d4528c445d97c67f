package io.pgharvest.pgwatch.format;

import io.pgharvest.model.Preset;
import java.util.Map;

/** One preset of pgwatch's {@code metrics.yaml}; the name is its key in the {@code presets:} map. */
public record PresetEntry(String description, Map<String, Integer> metrics) {

    public static PresetEntry of(Preset preset) {
        return new PresetEntry(SourceEntry.blankToNull(preset.description()), preset.metrics());
    }

    Preset toPreset(String name) {
        return new Preset(name, description, metrics);
    }
}
