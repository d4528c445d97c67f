package io.pgharvest.alert.store;

import io.pgharvest.alert.AlertTransition;
import java.time.Instant;

/** When a transition happened, as the history orders it: a firing at its start, a resolution at its end. */
final class HistoryTimes {

    private HistoryTimes() {
    }

    static Instant of(AlertTransition transition) {
        return transition.state() == AlertTransition.State.FIRING ? transition.startsAt() : transition.endsAt();
    }
}
