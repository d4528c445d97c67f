package io.pgharvest.alert.notify;

import io.pgharvest.model.BoundedText;

/**
 * A receiver did not accept a notification. The message is the receiver's own words (bounded and
 * escaped: the far end chooses them), never its URL or credentials, so it may be logged and kept.
 */
public class DeliveryException extends Exception {

    public DeliveryException(String message) {
        super(BoundedText.of(message));
    }

    public DeliveryException(String message, Throwable cause) {
        super(BoundedText.of(message));
        // The cause is not kept: a client's exception may quote the URL it failed on.
        if (cause != null) {
            setStackTrace(cause.getStackTrace());
        }
    }
}
