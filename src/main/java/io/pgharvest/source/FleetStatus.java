package io.pgharvest.source;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code GET /api/v1/status} reports: one page of the fleet, whole or as the changes after
 * the change index a client holds.
 *
 * @param counts how many sources are in each state, by the state's word, over the whole fleet
 *     (states without a source are left out)
 * @param total how many sources the fleet has
 * @param changeIndex the index of this answer: send it as {@code since} to get only what changes after it
 * @param whole true when {@code sources} is the fleet itself (a page of it) rather than changes:
 *     no {@code since} was given, or it was too old or not this process's (a client then forgets
 *     what it held and walks the pages)
 * @param sources the sources of this page in name order: every one when whole, else those that
 *     changed beyond their tick after {@code since} (new ones included)
 * @param ticks in the changes form, the sources whose only change is a newer tick
 * @param removed in the changes form (first page only), the names removed after {@code since}: apply
 *     before {@code sources}, since a name may be removed and added again
 * @param next the query of the next page (no wait), or null on the last one
 */
public record FleetStatus(Map<String, Integer> counts, int total, long changeIndex, boolean whole,
        List<FleetEntry> sources, List<FleetTick> ticks, List<String> removed, String next) {

    public FleetStatus {
        counts = Map.copyOf(counts);
        sources = List.copyOf(sources);
        ticks = List.copyOf(ticks);
        removed = List.copyOf(removed);
    }

    /**
     * The page {@code query} asks for of {@code picture}: at most {@link FleetQuery#limit()} sources
     * and ticks together, after {@link FleetQuery#after()}. Changes are answered only when the
     * picture can ({@link FleetLedger.Picture#answers}) and no more names were removed than a page
     * holds; else the whole fleet.
     */
    static FleetStatus page(FleetLedger.Picture picture, FleetQuery query) {
        Long since = query.since();
        boolean whole = since == null || !picture.answers(since);
        List<String> removed = whole || query.after() != null ? List.of() : picture.removedAfter(since);
        if (removed.size() > query.limit()) {
            whole = true;
            removed = List.of();
        }
        var counts = new TreeMap<String, Integer>();
        var sources = new ArrayList<FleetEntry>();
        var ticks = new ArrayList<FleetTick>();
        String last = null;
        String next = null;
        for (FleetLedger.Kept kept : picture.entries()) {
            FleetEntry entry = kept.entry();
            counts.merge(entry.state().label(), 1, Integer::sum);
            boolean afterCursor = query.after() == null || entry.name().compareTo(query.after()) > 0;
            boolean wanted = whole || kept.tickedAt() > since;
            if (next != null || !afterCursor || !wanted) {
                continue;
            }
            if (sources.size() + ticks.size() == query.limit()) {
                next = query.nextPage(last, !whole);
                continue;
            }
            if (whole || kept.changedAt() > since) {
                sources.add(entry);
            } else {
                ticks.add(FleetTick.of(entry));
            }
            last = entry.name();
        }
        return new FleetStatus(counts, picture.entries().size(), picture.index(), whole, sources, ticks, removed, next);
    }
}
