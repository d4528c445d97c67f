package io.pgharvest.source;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code GET /api/v1/status} reports: every source's {@link FleetEntry} and how many
 * sources are in each state, by the state's word (states without a source are left out).
 */
public record FleetStatus(Map<String, Integer> counts, List<FleetEntry> sources) {

    public FleetStatus {
        counts = Map.copyOf(counts);
        sources = List.copyOf(sources);
    }

    static FleetStatus of(List<SourceStatus> statuses) {
        List<FleetEntry> entries = statuses.stream().map(FleetEntry::of).toList();
        var counts = new TreeMap<String, Integer>();
        entries.forEach(entry -> counts.merge(entry.state().label(), 1, Integer::sum));
        return new FleetStatus(counts, entries);
    }
}
