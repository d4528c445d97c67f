package io.pgharvest.store;

import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;

/** Fingerprints of items in their file form; see {@link PgwatchYaml#fingerprint}. */
final class ItemFingerprints {

    private final PgwatchYaml yaml;

    ItemFingerprints(PgwatchYaml yaml) {
        this.yaml = yaml;
    }

    String of(StoreTable table, String name, Object item) {
        Object entry = switch (table) {
            case SOURCES -> SourceEntry.of((Source) item);
            case METRICS -> MetricEntry.of((MetricDefinition) item);
            case PRESETS -> PresetEntry.of((Preset) item);
        };
        return yaml.fingerprint(name, entry);
    }
}
