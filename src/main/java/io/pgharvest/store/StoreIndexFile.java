package io.pgharvest.store;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The content of {@code store-index.yaml}: the store-wide index, each table's last-change index
 * and, per item, its modify index and fingerprint (of its file form, pgwatch's YAML). Table
 * keys are {@code sources}, {@code metrics}, {@code presets}.
 */
public record StoreIndexFile(long index, Map<String, Long> tables, Map<String, Map<String, ItemStamp>> items) {

    public StoreIndexFile {
        tables = tables == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(tables));
        var copy = new TreeMap<String, Map<String, ItemStamp>>();
        if (items != null) {
            items.forEach((table, stamps) -> copy.put(table,
                    stamps == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(stamps))));
        }
        items = Collections.unmodifiableMap(copy);
    }

    /** When an item last changed, and what it looked like then. */
    public record ItemStamp(long modifyIndex, String fingerprint) {
    }
}
