package io.pgharvest.source;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * The fleet status as changes ({@code GET /api/v1/status?since=N}): remembers the entry it last
 * handed out for each source and the change index at which that entry last changed, so a console
 * that holds the fleet as of index N is sent only what differs, not a thousand unchanged entries.
 *
 * <p>The index advances by one for each reading that finds any difference, and only when someone
 * reads: a change is "after N" when a reading after the one that answered N found it. A source
 * whose only difference is a newer tick ({@link FleetEntry#sameBesidesTick}) is stamped apart
 * ({@code tickedAt}), so it travels as a small {@link FleetTick} rather than its whole entry.
 * Removed names are kept, at most {@value #MAX_REMOVALS}; when the oldest is forgotten, indexes
 * before it can no longer be answered as changes ({@link Picture#answers(long)} is false: the
 * caller answers the whole fleet). The index starts at this process's start time in milliseconds,
 * so an index from an earlier run of the process (smaller, unless that run read more than once a
 * millisecond) or from another process is never taken for one of this run.
 */
@Component
final class FleetLedger {

    static final int MAX_REMOVALS = 10_000;

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Kept> kept = new HashMap<>();
    private final ArrayDeque<Removal> removals = new ArrayDeque<>();
    private long index;
    private long floor;

    FleetLedger() {
        this(System.currentTimeMillis());
    }

    FleetLedger(long firstIndex) {
        this.index = firstIndex;
        this.floor = firstIndex;
    }

    /**
     * Reads the fleet with {@code read} (under this ledger's lock, so two readings are recorded in
     * the order they were read) and stamps what differs from the last reading.
     */
    Picture read(Supplier<List<FleetEntry>> read) {
        lock.lock();
        try {
            List<FleetEntry> current = read.get();
            long next = index + 1;
            boolean changed = false;
            Set<String> names = current.stream().map(FleetEntry::name).collect(Collectors.toSet());
            for (String name : List.copyOf(kept.keySet())) {
                if (!names.contains(name)) {
                    kept.remove(name);
                    removals.addLast(new Removal(name, next));
                    changed = true;
                }
            }
            while (removals.size() > MAX_REMOVALS) {
                floor = removals.removeFirst().at();
            }
            var entries = new ArrayList<Kept>(current.size());
            for (FleetEntry entry : current) {
                Kept before = kept.get(entry.name());
                Kept now;
                if (before == null || !entry.sameBesidesTick(before.entry())) {
                    now = new Kept(entry, next, next);
                } else if (!entry.equals(before.entry())) {
                    now = new Kept(entry, before.changedAt(), next);
                } else {
                    now = before;
                }
                if (now != before) {
                    kept.put(entry.name(), now);
                    changed = true;
                }
                entries.add(now);
            }
            if (changed) {
                index = next;
            }
            return new Picture(index, floor, entries, List.copyOf(removals));
        } finally {
            lock.unlock();
        }
    }

    /**
     * A source's entry as last read, with the index of the reading that last changed it beyond its
     * tick ({@code changedAt}) and of the one that last changed it at all ({@code tickedAt}).
     */
    record Kept(FleetEntry entry, long changedAt, long tickedAt) {
    }

    /** A source that a reading no longer found, and that reading's index. */
    record Removal(String name, long at) {
    }

    /**
     * One reading: every source's kept entry in the order read, the removals still kept, the
     * ledger's index after it, and the oldest index it can answer as changes.
     */
    record Picture(long index, long floor, List<Kept> entries, List<Removal> removals) {

        Picture {
            entries = List.copyOf(entries);
            removals = List.copyOf(removals);
        }

        /** Whether a client holding the fleet as of {@code since} can be sent changes only. */
        boolean answers(long since) {
            return since >= floor && since <= index;
        }

        /** The names removed after {@code since}, oldest removal first. */
        List<String> removedAfter(long since) {
            return removals.stream().filter(removal -> removal.at() > since).map(Removal::name).toList();
        }
    }
}
