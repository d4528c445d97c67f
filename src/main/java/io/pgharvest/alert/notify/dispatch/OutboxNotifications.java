package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.OutboxEntry;

import io.pgharvest.alert.AlertNotifications;
import io.pgharvest.alert.AlertTransition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Evaluation's hand-over point: each transition becomes one outbox entry per receiver whose route
 * matches, written durably before the call returns; the {@link OutboxDispatcher} sends them. A
 * transition handed over twice is one entry (the outbox's key). Receivers that want re-sends
 * (Alertmanager) get a firing alert again at most once per {@code resendInterval}: each interval
 * is a numbered slot in the entry's key, so a re-send is kept once however many instances or
 * rounds offer it.
 */
public final class OutboxNotifications implements AlertNotifications {

    private final NotifyStore store;
    private final ReceiverCatalog receivers;
    private final OutboxDispatcher dispatcher;
    private final Clock clock;
    private final Duration resendInterval;

    public OutboxNotifications(NotifyStore store, ReceiverCatalog receivers, OutboxDispatcher dispatcher, Clock clock,
            Duration resendInterval) {
        this.store = store;
        this.receivers = receivers;
        this.dispatcher = dispatcher;
        this.clock = clock;
        this.resendInterval = resendInterval;
    }

    @Override
    public void transition(AlertTransition transition) {
        Instant now = clock.instant();
        String event = transition.state().name().toLowerCase(Locale.ROOT);
        var entries = new ArrayList<OutboxEntry>();
        for (ReceiverCatalog.Active receiver : receivers.receivers()) {
            if (receiver.definition().route().matches(transition.labels())) {
                entries.add(OutboxEntry.pending(key(receiver, transition, event), transition, now));
            }
        }
        enqueue(entries);
    }

    @Override
    public void stillFiring(Collection<AlertTransition> firing) {
        Instant now = clock.instant();
        String event = OutboxEntry.RESEND + now.toEpochMilli() / resendInterval.toMillis();
        var entries = new ArrayList<OutboxEntry>();
        for (ReceiverCatalog.Active receiver : receivers.receivers()) {
            if (!receiver.receiver().wantsResends()) {
                continue;
            }
            for (AlertTransition transition : firing) {
                if (transition.state() == AlertTransition.State.FIRING
                        && receiver.definition().route().matches(transition.labels())) {
                    entries.add(OutboxEntry.pending(key(receiver, transition, event), transition, now));
                }
            }
        }
        enqueue(entries);
    }

    private void enqueue(List<OutboxEntry> entries) {
        if (!entries.isEmpty() && store.enqueue(entries) > 0) {
            dispatcher.wake();
        }
    }

    private static OutboxEntry.Key key(ReceiverCatalog.Active receiver, AlertTransition transition, String event) {
        return new OutboxEntry.Key(receiver.name(), transition.fingerprint(), transition.startsAt(), event);
    }
}
