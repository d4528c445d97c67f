package io.pgharvest.alert.store;

import io.pgharvest.alert.AlertNotifications;
import io.pgharvest.alert.AlertTransition;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * The notification every pgharvest has, receivers or not: each firing and resolution is written
 * to the alert history ({@code GET /api/v1/alerts/history}). Re-sends are not history.
 */
public final class HistoryNotifications implements AlertNotifications {

    private final AlertStorage storage;

    public HistoryNotifications(AlertStorage storage) {
        this.storage = storage;
    }

    @Override
    public void transition(AlertTransition transition) {
        storage.appendHistory(transition);
    }

    @Override
    public void stillFiring(Collection<AlertTransition> firing) {
        // The history records changes only.
    }

    /** The history between {@code from} (inclusive) and {@code to}, oldest first, at most {@code limit}. */
    public List<AlertTransition> between(Instant from, Instant to, int limit) {
        return storage.readHistory(from, to, limit);
    }
}
