package io.pgharvest.alert;

import java.util.Collection;

/**
 * Where evaluation hands alerts to the notification side (the outbox and its receivers). Both
 * calls must be durable when they return (written to the configuration store's outbox), and
 * idempotent per {@link AlertTransition} identity; they never call a receiver themselves, so a
 * receiver that is down never slows evaluation.
 */
public interface AlertNotifications {

    /** An alert started firing or resolved: every matching receiver gets it exactly once. */
    void transition(AlertTransition transition);

    /**
     * The alerts firing now, at every evaluation round (about once a minute): receivers that want
     * re-sends (Alertmanager, which forgets an alert whose {@code endsAt} passed) get them; the
     * others ignore alerts they were already sent.
     */
    void stillFiring(Collection<AlertTransition> firing);
}
