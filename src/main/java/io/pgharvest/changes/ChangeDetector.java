package io.pgharvest.changes;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.RowTags;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
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

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private final HashedObjects kind;
    /**
     * The last read in its row order, null before the first read: per row a 64-bit digest of what
     * makes the object itself (identity columns and row tags) and one of its hash column's text.
     * Kept as digests, not as values: most reads repeat the last one row for row and compare two
     * arrays; at 300 sources the settings' names and values kept as read were a seventh of the
     * live heap. Two different objects (or texts) get equal digests with a chance of 2^-64.
     */
    private long[] lastIdentities;
    private long[] lastHashes;
    /**
     * The last read's objects in its row order, kept only for kinds that report drops (the drop
     * event names the object, which a digest cannot).
     */
    private List<Identity> lastObjects;

    /** What a drop is reported with: the identity columns' values and the row tags. */
    private record Identity(List<Object> values, Map<String, String> tags) {
    }

    ChangeDetector(HashedObjects kind) {
        this.kind = kind;
    }

    /** The change rows between the previous read and {@code read}; empty on the first read. */
    List<Measurement.Row> compare(List<Measurement.Row> read) {
        long[] identities = new long[read.size()];
        long[] hashes = new long[read.size()];
        for (int i = 0; i < read.size(); i++) {
            identities[i] = identityOf(read.get(i));
            hashes[i] = hashOf(read.get(i));
        }
        if (lastIdentities != null && Arrays.equals(identities, lastIdentities) && Arrays.equals(hashes, lastHashes)) {
            // Nothing created, altered or dropped; no map is built (the settings of 300 sources
            // compared row by row every tick were a seventh of the collector's CPU).
            return List.of();
        }
        var changes = new ArrayList<Measurement.Row>();
        if (lastIdentities != null) {
            Map<Long, Long> before = byIdentity(lastIdentities, lastHashes);
            for (int i = 0; i < read.size(); i++) {
                Long was = before.get(identities[i]);
                if (was == null) {
                    changes.add(event(read.get(i), kind.created()));
                } else if (was != hashes[i]) {
                    changes.add(event(read.get(i), kind.altered()));
                }
            }
            if (kind.dropped() != null) {
                Map<Long, Long> next = byIdentity(identities, hashes);
                var reported = new HashSet<Long>();
                for (int i = 0; i < lastIdentities.length; i++) {
                    if (!next.containsKey(lastIdentities[i]) && reported.add(lastIdentities[i])) {
                        changes.add(event(dropped(lastObjects.get(i)), kind.dropped()));
                    }
                }
            }
        }
        if (kind.dropped() != null) {
            lastObjects = objectsOf(read);
        }
        lastIdentities = identities;
        lastHashes = hashes;
        return changes;
    }

    /** Identity to hash; an object read twice counts with its last hash. */
    private static Map<Long, Long> byIdentity(long[] identities, long[] hashes) {
        var map = new HashMap<Long, Long>(Math.max(16, identities.length * 4 / 3 + 1));
        for (int i = 0; i < identities.length; i++) {
            map.put(identities[i], hashes[i]);
        }
        return map;
    }

    private List<Identity> objectsOf(List<Measurement.Row> read) {
        var objects = new ArrayList<Identity>(read.size());
        List<String> columns = kind.identityColumns();
        for (Measurement.Row row : read) {
            Object[] values = new Object[columns.size()];
            for (int c = 0; c < values.length; c++) {
                values[c] = row.values().get(columns.get(c));
            }
            objects.add(new Identity(Arrays.asList(values), row.tags()));
        }
        return objects;
    }

    /** The hash column's text as a digest (0 without one). */
    private long hashOf(Measurement.Row row) {
        if (kind.hashColumn() == null) {
            return 0;
        }
        return fnv(FNV_OFFSET, Objects.toString(row.values().get(kind.hashColumn()), ""));
    }

    /**
     * The identity columns' values in order (a null apart from any text), then the row tags in any
     * order: a tag's digest is added, so two maps of the same tags give the same sum whatever
     * order they iterate in.
     */
    private long identityOf(Measurement.Row row) {
        long digest = FNV_OFFSET;
        List<String> columns = kind.identityColumns();
        for (int i = 0; i < columns.size(); i++) { // by index: no iterator per row
            Object value = row.values().get(columns.get(i));
            digest = value == null ? (digest ^ 0xff) * FNV_PRIME : fnv((digest ^ 0xfe) * FNV_PRIME, value.toString());
        }
        RowTags tags = RowTags.copyOf(row.tags()); // already one: read by position, no entry objects
        long tagSum = 0;
        for (int i = 0; i < tags.size(); i++) {
            tagSum += fnv(fnv(FNV_OFFSET, tags.name(i)) * FNV_PRIME, tags.value(i)) * FNV_PRIME;
        }
        return digest ^ tagSum;
    }

    /** FNV-1a over {@code text}'s characters, continued from {@code hash}; a 0 ends each text. */
    private static long fnv(long hash, String text) {
        for (int i = 0; i < text.length(); i++) {
            hash = (hash ^ text.charAt(i)) * FNV_PRIME;
        }
        return hash * FNV_PRIME;
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
