package io.pgharvest.changes;

import io.pgharvest.model.Measurement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Compares one source's successive reads of one kind of object and names what was created,
 * altered or dropped in between. The first read only records the state (as pgwatch does): a
 * restart of pgharvest reports no change for what happened while it was down. Not thread-safe:
 * one per (source, kind), used by that source's reaper thread.
 */
final class ChangeDetector {

    private final HashedObjects kind;
    /** Object identity to the hash last seen. */
    private Map<Identity, String> state;
    /** The last read's identities and hashes in its row order: most reads repeat it exactly. */
    private List<Identity> lastIdentities = List.of();
    private List<String> lastHashes = List.of();

    /**
     * What makes an object itself: its identity columns' values (in {@link HashedObjects#identityColumns}
     * order, nulls allowed) and its row tags (the row's own immutable map, not a copy). Compared
     * by value, so no key text is built per row; a drop is reported from it.
     */
    private record Identity(List<Object> values, Map<String, String> tags) {
    }

    ChangeDetector(HashedObjects kind) {
        this.kind = kind;
    }

    /** The change rows between the previous read and {@code read}; empty on the first read. */
    List<Measurement.Row> compare(List<Measurement.Row> read) {
        if (state != null && repeatsLastRead(read)) {
            // Nothing created, altered or dropped; no map is built (the settings of 300 sources
            // compared row by row every tick were a seventh of the collector's CPU).
            return List.of();
        }
        var next = new HashMap<Identity, String>(Math.max(16, read.size() * 4 / 3 + 1));
        var identities = new ArrayList<Identity>(read.size());
        var hashes = new ArrayList<String>(read.size());
        var changes = new ArrayList<Measurement.Row>();
        for (Measurement.Row row : read) {
            Identity identity = identityOf(row);
            String hash = hashOf(row);
            identities.add(identity);
            hashes.add(hash);
            next.put(identity, hash);
            if (state == null) {
                continue;
            }
            String before = state.get(identity);
            if (before == null) {
                changes.add(event(row, kind.created()));
            } else if (!before.equals(hash)) {
                changes.add(event(row, kind.altered()));
            }
        }
        if (state != null && kind.dropped() != null) {
            state.forEach((identity, hash) -> {
                if (!next.containsKey(identity)) {
                    changes.add(event(dropped(identity), kind.dropped()));
                }
            });
        }
        state = next;
        lastIdentities = identities;
        lastHashes = hashes;
        return changes;
    }

    /** Whether {@code read} holds the same objects with the same hashes in the same order as the last. */
    private boolean repeatsLastRead(List<Measurement.Row> read) {
        if (read.size() != lastIdentities.size()) {
            return false;
        }
        List<String> columns = kind.identityColumns();
        for (int i = 0; i < read.size(); i++) {
            Measurement.Row row = read.get(i);
            Identity last = lastIdentities.get(i);
            if (!hashOf(row).equals(lastHashes.get(i)) || !row.tags().equals(last.tags())) {
                return false;
            }
            for (int c = 0; c < columns.size(); c++) {
                if (!Objects.equals(row.values().get(columns.get(c)), last.values().get(c))) {
                    return false;
                }
            }
        }
        return true;
    }

    private String hashOf(Measurement.Row row) {
        return kind.hashColumn() == null ? "" : Objects.toString(row.values().get(kind.hashColumn()), "");
    }

    private Identity identityOf(Measurement.Row row) {
        List<String> columns = kind.identityColumns();
        if (columns.isEmpty()) {
            return new Identity(List.of(), row.tags());
        }
        Object[] values = new Object[columns.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = row.values().get(columns.get(i));
        }
        return new Identity(Arrays.asList(values), row.tags());
    }

    /** The row a dropped object is reported with: its identity columns and tags. */
    private Measurement.Row dropped(Identity identity) {
        var values = new LinkedHashMap<String, Object>();
        List<String> columns = kind.identityColumns();
        for (int i = 0; i < columns.size(); i++) {
            values.put(columns.get(i), identity.values().get(i));
        }
        return new Measurement.Row(values, identity.tags());
    }

    private static Measurement.Row event(Measurement.Row row, String event) {
        var values = new LinkedHashMap<>(row.values());
        values.put("event", event);
        return new Measurement.Row(values, row.tags());
    }
}
