package io.pgharvest.lease;

import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceOwner;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Every lease of the fleet as read at the last renew: the fleet-wide ownership any instance
 * answers with. Written by the renew loop only ({@link #publish}); read by status queries at any
 * time through one volatile reference to an immutable map.
 */
final class FleetLeases {

    private final String self;
    private final Runnable changed;
    private volatile Map<String, FleetView.Lease> leases = Map.of();

    /** @param changed told when an owner, or what an owner reports as significant, changed */
    FleetLeases(String self, Runnable changed) {
        this.self = self;
        this.changed = changed;
    }

    /**
     * Keeps {@code current} and wakes blocking status queries when an owner, or what an owner
     * reports as significant (state, error), changed; not on every tick.
     */
    void publish(Map<String, FleetView.Lease> current) {
        Map<String, FleetView.Lease> previous = leases;
        leases = current;
        boolean differs = previous.size() != current.size();
        for (var lease : current.values()) {
            FleetView.Lease before = previous.get(lease.source());
            if (differs || before == null || before.epoch() != lease.epoch()
                    || !Objects.equals(before.owner(), lease.owner()) || !Objects.equals(before.state(), lease.state())
                    || !Objects.equals(before.lastError(), lease.lastError())) {
                differs = true;
                break;
            }
        }
        if (differs) {
            changed.run();
        }
    }

    Optional<SourceOwner> owner(String source) {
        return Optional.ofNullable(leases.get(source)).map(lease -> new SourceOwner(lease.owner(),
                self.equals(lease.owner()), lease.epoch(), lease.expiresAt(), lease.lastTickAt(),
                stateOf(lease.state()), lease.lastError()));
    }

    private static SessionState stateOf(String label) {
        for (SessionState state : SessionState.values()) {
            if (state.label().equals(label)) {
                return state;
            }
        }
        return null;
    }
}
