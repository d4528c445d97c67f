package io.pgharvest.store;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import java.util.List;

/**
 * Items to create or replace in one step ({@link ConfigStore#putAll}), e.g. an import: all of them
 * are written or, when one is invalid, none.
 */
public record ConfigChanges(List<Source> sources, List<MetricDefinition> metrics, List<Preset> presets) {

    public ConfigChanges {
        sources = sources == null ? List.of() : List.copyOf(sources);
        metrics = metrics == null ? List.of() : List.copyOf(metrics);
        presets = presets == null ? List.of() : List.copyOf(presets);
    }

    public boolean isEmpty() {
        return sources.isEmpty() && metrics.isEmpty() && presets.isEmpty();
    }

    public int size() {
        return sources.size() + metrics.size() + presets.size();
    }
}
