package io.pgharvest.lease;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one instance knows at one renew: the live instances (by id, with their group filters),
 * every lease, and the sources the configuration wants collected (by name, with their group).
 */
record FleetView(String self, Map<String, Set<String>> instances, Map<String, Lease> leases,
        Map<String, String> wanted) {

    FleetView {
        instances = Map.copyOf(instances);
        leases = Map.copyOf(leases);
        wanted = Map.copyOf(wanted);
    }

    /** One row of {@code source_lease}; {@code owner} null when handed back. */
    record Lease(String source, String owner, long epoch, boolean expired, double costMillis, Instant expiresAt,
            Instant lastTickAt, String state, String lastError) {
    }

    /** Whether {@code instance}'s group filter admits a source of {@code group}. */
    boolean admits(String instance, String group) {
        Set<String> groups = instances.getOrDefault(instance, Set.of());
        return groups.isEmpty() || groups.contains(group == null ? "default" : group);
    }

    List<String> instancesAdmitting(String group) {
        return instances.keySet().stream().filter(id -> admits(id, group)).sorted().toList();
    }
}
