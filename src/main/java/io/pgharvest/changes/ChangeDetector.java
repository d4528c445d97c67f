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
    /**
     * The last read's identities and hashes in its row order, null before the first read. Kept as
     * read, not as a map: most reads repeat the last one row for row and are compared in order;
     * only a read that differs builds the maps. A hash column's text is kept as a 64-bit digest of
     * it, not as the text: at 300 sources the settings' values held this way were a tenth of the
     * live heap.
     */
    private List<Identity> lastIdentities;
    private long[] lastHashes;

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
        if (lastIdentities != null && repeatsLastRead(read)) {
            // Nothing created, altered or dropped; no map is built (the settings of 300 sources
            // compared row by row every tick were a seventh of the collector's CPU).
            return List.of();
        }
        var identities = new ArrayList<Identity>(read.size());
        long[] hashes = new long[read.size()];
        for (int i = 0; i < read.size(); i++) {
            identities.add(identityOf(read.get(i)));
            hashes[i] = hashOf(read.get(i));
        }
        var changes = new ArrayList<Measurement.Row>();
        if (lastIdentities != null) {
            Map<Identity, Long> before = byIdentity(lastIdentities, lastHashes);
            Map<Identity, Long> next = byIdentity(identities, hashes);
            for (int i = 0; i < read.size(); i++) {
                Long was = before.get(identities.get(i));
                if (was == null) {
                    changes.add(event(read.get(i), kind.created()));
                } else if (was != hashes[i]) {
                    changes.add(event(read.get(i), kind.altered()));
                }
            }
            if (kind.dropped() != null) {
                before.keySet().forEach(identity -> {
                    if (!next.containsKey(identity)) {
                        changes.add(event(dropped(identity), kind.dropped()));
                    }
                });
            }
        }
        lastIdentities = identities;
        lastHashes = hashes;
        return changes;
    }

    /** Identity to hash; an object read twice counts with its last hash. */
    private static Map<Identity, Long> byIdentity(List<Identity> identities, long[] hashes) {
        var map = new HashMap<Identity, Long>(Math.max(16, identities.size() * 4 / 3 + 1));
        for (int i = 0; i < identities.size(); i++) {
            map.put(identities.get(i), hashes[i]);
        }
        return map;
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
            if (hashOf(row) != lastHashes[i] || !row.tags().equals(last.tags())) {
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

    /** FNV-1a over the hash column's text (0 without one): two texts of one object that differ get equal digests with a chance of 2^-64. */
    private long hashOf(Measurement.Row row) {
        if (kind.hashColumn() == null) {
            return 0;
        }
        String text = Objects.toString(row.values().get(kind.hashColumn()), "");
        long hash = 0xcbf29ce484222325L;
        for (int i = 0; i < text.length(); i++) {
            hash = (hash ^ text.charAt(i)) * 0x100000001b3L;
        }
        return hash;
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
