package io.pgharvest.changes;

import io.pgharvest.model.Measurement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Compares one source's successive reads of one kind of object and names what was created,
 * altered or dropped in between. The first read only records the state (as pgwatch does): a
 * restart of pgharvest reports no change for what happened while it was down. Not thread-safe:
 * one per (source, kind), used by that source's reaper thread.
 */
final class ChangeDetector {

    private final HashedObjects kind;
    /** Object identity to the hash last seen and the row to report a drop with. */
    private Map<String, Seen> state;

    /** @param identity the object's identity columns and tags, what a drop is reported with */
    private record Seen(String hash, Measurement.Row identity) {
    }

    ChangeDetector(HashedObjects kind) {
        this.kind = kind;
    }

    /** The change rows between the previous read and {@code read}; empty on the first read. */
    List<Measurement.Row> compare(List<Measurement.Row> read) {
        var next = new HashMap<String, Seen>();
        var changes = new ArrayList<Measurement.Row>();
        for (Measurement.Row row : read) {
            Measurement.Row identity = identityOf(row);
            String key = new TreeMap<>(identity.values()) + " " + new TreeMap<>(identity.tags());
            String hash = kind.hashColumn() == null ? "" : Objects.toString(row.values().get(kind.hashColumn()), "");
            next.put(key, new Seen(hash, identity));
            if (state == null) {
                continue;
            }
            Seen before = state.get(key);
            if (before == null) {
                changes.add(event(row, kind.created()));
            } else if (!before.hash().equals(hash)) {
                changes.add(event(row, kind.altered()));
            }
        }
        if (state != null && kind.dropped() != null) {
            state.forEach((key, seen) -> {
                if (!next.containsKey(key)) {
                    changes.add(event(seen.identity(), kind.dropped()));
                }
            });
        }
        state = next;
        return changes;
    }

    private Measurement.Row identityOf(Measurement.Row row) {
        var values = new LinkedHashMap<String, Object>();
        for (String column : kind.identityColumns()) {
            values.put(column, row.values().get(column));
        }
        return new Measurement.Row(values, row.tags());
    }

    private static Measurement.Row event(Measurement.Row row, String event) {
        var values = new LinkedHashMap<>(row.values());
        values.put("event", event);
        return new Measurement.Row(values, row.tags());
    }
}
