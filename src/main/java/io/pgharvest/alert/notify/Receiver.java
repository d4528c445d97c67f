package io.pgharvest.alert.notify;

import io.pgharvest.alert.AlertTransition;

/**
 * One configured receiver, ready to send. Called by the outbox's dispatcher only, one
 * notification at a time per receiver; never on evaluation's path.
 */
public interface Receiver extends AutoCloseable {

    /**
     * Sends one notification; returns only once the far end accepted it.
     *
     * @throws DeliveryException when it did not (the outbox retries later); its message never
     *     holds the receiver's URL or credentials
     */
    void send(AlertTransition transition) throws DeliveryException;

    /**
     * Whether pgharvest's silences apply: true for the direct receivers; Alertmanager silences
     * alerts itself, so its receiver gets everything.
     */
    default boolean honoursSilences() {
        return true;
    }

    /** Whether the receiver wants firing alerts re-sent each evaluation round (Alertmanager forgets them otherwise). */
    default boolean wantsResends() {
        return false;
    }

    @Override
    default void close() {
    }
}
