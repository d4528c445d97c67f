package io.pgharvest.discovery;

/** A discovery that failed; the previous set of sources keeps running. Never carries a secret. */
public class DiscoveryException extends Exception {

    public DiscoveryException(String message, Throwable cause) {
        super(message, cause);
    }

    public DiscoveryException(String message) {
        super(message);
    }
}
