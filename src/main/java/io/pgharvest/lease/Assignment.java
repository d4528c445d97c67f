package io.pgharvest.lease;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides, from one instance's {@link FleetView}, which free sources it claims and which of its
 * own it hands back, so that every instance converges on its fair share without talking to the
 * others: each source weighs half for being a source and half its measured cost relative to the
 * fleet's mean, and an instance's share is the weight of the sources it may collect divided by
 * the live instances that may collect them.
 *
 * <p>Free sources are tried in the order of a rendezvous hash of (source, instance), so
 * instances claiming at the same moment mostly want different sources; an instance only hands
 * sources back while it stays at or above its share without them (claims stop once at the
 * share, so the two never chase each other), and at
 * most {@code maxMoves} per renew (no reconnect burst when an instance joins).
 */
final class Assignment {

    /** Ticks shorter than this count as equally cheap. */
    static final double COST_FLOOR_MILLIS = 32;

    private Assignment() {
    }

    /** What to do at one renew. */
    record Plan(List<String> claim, List<String> release) {
    }

    static Plan plan(FleetView view, boolean mayTakeExpired, int maxMoves) {
        Map<String, Double> weight = weights(view);
        String self = view.self();
        double total = 0;
        double mine = 0;
        var free = new ArrayList<String>();
        var owned = new ArrayList<String>();
        for (var entry : view.wanted().entrySet()) {
            String source = entry.getKey();
            FleetView.Lease lease = view.leases().get(source);
            boolean ownedByMe = lease != null && self.equals(lease.owner());
            if (ownedByMe) {
                owned.add(source);
                mine += weight.get(source);
            }
            if (!view.admits(self, entry.getValue())) {
                continue;
            }
            total += weight.get(source) / Math.max(1, view.instancesAdmitting(entry.getValue()).size());
            boolean isFree = lease == null || lease.owner() == null || (!ownedByMe && lease.expired() && mayTakeExpired);
            if (isFree) {
                free.add(source);
            }
        }
        double share = total;
        free.sort(Comparator.comparingLong((String source) -> score(source, self)).reversed());
        var claim = new ArrayList<String>();
        for (String source : free) {
            if (mine >= share) {
                break;
            }
            claim.add(source);
            mine += weight.get(source);
        }
        var release = new ArrayList<String>();
        // Sources this instance may not collect (filter changed, or source gone) go back first.
        for (String source : owned) {
            if (!view.admits(self, view.wanted().get(source))) {
                release.add(source);
                mine -= weight.get(source);
            }
        }
        owned.removeAll(release);
        owned.sort(Comparator.comparingLong((String source) -> score(source, self)));
        for (String source : owned) {
            double w = weight.get(source);
            if (release.size() >= maxMoves || mine - w < share - 1e-9) {
                break;
            }
            release.add(source);
            mine -= w;
        }
        return new Plan(List.copyOf(claim), List.copyOf(release));
    }

    private static Map<String, Double> weights(FleetView view) {
        double sum = 0;
        int measured = 0;
        for (String source : view.wanted().keySet()) {
            FleetView.Lease lease = view.leases().get(source);
            if (lease != null && lease.costMillis() > 0) {
                sum += cost(lease.costMillis());
                measured++;
            }
        }
        double mean = measured == 0 ? 0 : sum / measured;
        var weights = new HashMap<String, Double>();
        for (String source : view.wanted().keySet()) {
            FleetView.Lease lease = view.leases().get(source);
            double cost = lease == null || lease.costMillis() <= 0 ? mean : cost(lease.costMillis());
            weights.put(source, mean == 0 ? 1.0 : 0.5 + 0.5 * cost / mean);
        }
        return weights;
    }

    /**
     * A tick's measured duration as a cost that ignores noise: below {@link #COST_FLOOR_MILLIS}
     * every source costs the same (their differences are jitter), above it the next power of two.
     * Without this, a few milliseconds of jitter move the shares at every renew and sources
     * travel back and forth between instances.
     */
    static double cost(double millis) {
        if (millis <= COST_FLOOR_MILLIS) {
            return COST_FLOOR_MILLIS;
        }
        return Math.pow(2, Math.ceil(Math.log(millis) / Math.log(2)));
    }

    /** A stable 64-bit hash of (source, instance) (FNV-1a), the same in every JVM. */
    static long score(String source, String instance) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : (source + '\u0000' + instance).getBytes(StandardCharsets.UTF_8)) {
            hash ^= b;
            hash *= 0x100000001b3L;
        }
        return hash;
    }
}
