package io.pgharvest.store.state;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Finds the sources and presets that refer to a metric or preset, to refuse deleting it. */
final class ItemUsers {

    private ItemUsers() {
    }

    static Map<StoreTable, List<String>> ofMetric(ConfigSnapshot snapshot, String metric) {
        var users = new EnumMap<StoreTable, List<String>>(StoreTable.class);
        List<String> sources = snapshot.sources().values().stream()
                .filter(s -> s.metrics().containsKey(metric) || s.standbyMetrics().containsKey(metric))
                .map(Source::name).toList();
        List<String> presets = snapshot.presets().values().stream()
                .filter(p -> p.metrics().containsKey(metric))
                .map(p -> p.name()).toList();
        putIfAny(users, StoreTable.SOURCES, sources);
        putIfAny(users, StoreTable.PRESETS, presets);
        return users;
    }

    static Map<StoreTable, List<String>> ofPreset(ConfigSnapshot snapshot, String preset) {
        var users = new EnumMap<StoreTable, List<String>>(StoreTable.class);
        putIfAny(users, StoreTable.SOURCES, snapshot.sources().values().stream()
                .filter(s -> Objects.equals(s.preset(), preset) || Objects.equals(s.standbyPreset(), preset))
                .map(Source::name).toList());
        return users;
    }

    private static void putIfAny(Map<StoreTable, List<String>> users, StoreTable table, List<String> names) {
        if (!names.isEmpty()) {
            users.put(table, new ArrayList<>(names));
        }
    }
}
