package io.pgharvest.alert.store;

/** A rule write that cannot be done as asked; nothing was changed. */
public class RuleChangeException extends RuntimeException {

    /** What stood in the way; the API answers 404 for {@link #NOT_FOUND}, 409 for the others. */
    public enum Reason { NOT_FOUND, DUPLICATE, BUILT_IN }

    private final Reason reason;

    public RuleChangeException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
