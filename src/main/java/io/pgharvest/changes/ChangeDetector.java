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
    /** Object identity (its tags, sorted) to the hash last seen and the tags to report a drop with. */
    private Map<String, Seen> state;

    private record Seen(String hash, Map<String, String> tags) {
    }

    ChangeDetector(HashedObjects kind) {
        this.kind = kind;
    }

    /** The change rows between the previous read and {@code read}; empty on the first read. */
    List<Measurement.Row> compare(List<Measurement.Row> read) {
        var next = new HashMap<String, Seen>();
        var changes = new ArrayList<Measurement.Row>();
        for (Measurement.Row row : read) {
            String identity = new TreeMap<>(row.tags()).toString();
            String hash = Objects.toString(row.values().get(kind.hashColumn()), "");
            next.put(identity, new Seen(hash, row.tags()));
            if (state == null) {
                continue;
            }
            Seen before = state.get(identity);
            if (before == null) {
                changes.add(event(row, kind.created()));
            } else if (!before.hash().equals(hash)) {
                changes.add(event(row, kind.altered()));
            }
        }
        if (state != null && kind.dropped() != null) {
            state.forEach((identity, seen) -> {
                if (!next.containsKey(identity)) {
                    changes.add(new Measurement.Row(Map.of("event", kind.dropped()), seen.tags()));
                }
            });
        }
        state = next;
        return changes;
    }

    private static Measurement.Row event(Measurement.Row row, String event) {
        var values = new LinkedHashMap<>(row.values());
        values.put("event", event);
        return new Measurement.Row(values, row.tags());
    }
}
