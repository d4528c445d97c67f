package io.pgharvest.store.state;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;
import io.pgharvest.pgwatch.format.MetricEntry;
import io.pgharvest.pgwatch.format.PgwatchYaml;
import io.pgharvest.pgwatch.format.PresetEntry;
import io.pgharvest.pgwatch.format.SourceEntry;
import io.pgharvest.store.StoreIndexFile.ItemStamp;
import io.pgharvest.store.StoreIndexFile;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * Fingerprints of items in their file form ({@link PgwatchYaml#fingerprint}), and the stamps they
 * give a state read back from storage: an item whose fingerprint is the recorded one keeps its
 * recorded modify index, any other gets the recorded store index plus one, above anything a client
 * can have seen.
 */
public final class ItemFingerprints {

    private final PgwatchYaml yaml;

    public ItemFingerprints(PgwatchYaml yaml) {
        this.yaml = yaml;
    }

    public String of(StoreTable table, String name, Object item) {
        Object entry = switch (table) {
            case SOURCES -> SourceEntry.of((Source) item);
            case METRICS -> MetricEntry.of((MetricDefinition) item);
            case PRESETS -> PresetEntry.of((Preset) item);
        };
        return yaml.fingerprint(name, entry);
    }

    /** {@code unstamped} with stamps: recorded ones where the item is unchanged, recorded index + 1 elsewhere. */
    public StoreState stamp(StoreState unstamped, StoreIndexFile recorded) {
        long recordedIndex = recorded == null ? 0 : recorded.index();
        long next = recordedIndex + 1;
        boolean changed = false;
        var stamps = new EnumMap<StoreTable, Map<String, ItemStamp>>(StoreTable.class);
        var tableIndexes = new EnumMap<StoreTable, Long>(StoreTable.class);
        for (StoreTable table : StoreTable.values()) {
            Map<String, ItemStamp> before = recorded == null ? Map.of()
                    : recorded.items().getOrDefault(StoreState.key(table), Map.of());
            var after = new HashMap<String, ItemStamp>();
            effectiveItems(unstamped.snapshot(), table).forEach((name, item) -> {
                String fingerprint = of(table, name, item);
                ItemStamp old = before.get(name);
                boolean same = old != null && fingerprint.equals(old.fingerprint()) && old.modifyIndex() <= recordedIndex;
                after.put(name, same ? old : new ItemStamp(next, fingerprint));
            });
            boolean tableChanged = !after.equals(before);
            long recordedTableIndex = recorded == null ? 0
                    : Math.min(recorded.tables().getOrDefault(StoreState.key(table), 0L), recordedIndex);
            tableIndexes.put(table, tableChanged ? next : recordedTableIndex);
            stamps.put(table, after);
            changed |= tableChanged;
        }
        long index = changed ? next : recordedIndex;
        return StoreState.of(index, unstamped.builtIns(), unstamped.sources(), unstamped.userMetrics(),
                unstamped.userPresets(), tableIndexes, stamps);
    }

    private static Map<String, ?> effectiveItems(ConfigSnapshot snapshot, StoreTable table) {
        return switch (table) {
            case SOURCES -> snapshot.sources();
            case METRICS -> snapshot.metrics();
            case PRESETS -> snapshot.presets();
        };
    }
}
