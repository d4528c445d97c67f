package io.pgharvest.alert.notify;

import java.util.List;

/** A receiver that has silences of its own (Alertmanager), listed beside pgharvest's. */
public interface ExternalSilences {

    /**
     * The receiver's silences now, each with {@link Silence#origin()} saying where it lives.
     *
     * @throws DeliveryException when none of the receiver's servers answered
     */
    List<Silence> silences() throws DeliveryException;
}
