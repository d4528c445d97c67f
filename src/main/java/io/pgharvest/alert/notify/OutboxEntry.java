package io.pgharvest.alert.notify;

import io.pgharvest.alert.AlertTransition;
import java.time.Instant;
import java.util.Objects;

/**
 * One notification for one receiver, in the outbox until it is sent (or silenced, superseded or
 * given up on). {@link Key} identifies it: the same transition handed over twice is one entry.
 *
 * @param key which alert change for which receiver
 * @param transition what is sent
 * @param createdAt when it entered the outbox
 * @param attempts how many sends failed so far
 * @param nextAttemptAt when the dispatcher may try it (again)
 * @param status where it stands
 * @param note why it stands there: the last failure, the silence, ... (the receiver's words,
 *     bounded and escaped; never its URL or credentials)
 */
public record OutboxEntry(Key key, AlertTransition transition, Instant createdAt, int attempts,
        Instant nextAttemptAt, Status status, String note) {

    /** {@code event}: {@code firing}, {@code resolved}, or {@code resend-N} (the N-th re-send slot of a firing alert). */
    public record Key(String receiver, String fingerprint, Instant startsAt, String event) {

        public Key {
            Objects.requireNonNull(receiver, "receiver");
            Objects.requireNonNull(fingerprint, "fingerprint");
            Objects.requireNonNull(startsAt, "startsAt");
            Objects.requireNonNull(event, "event");
        }

        @com.fasterxml.jackson.annotation.JsonIgnore
        public boolean isResend() {
            return event.startsWith(RESEND);
        }
    }

    public static final String RESEND = "resend-";

    public enum Status {
        /** Not sent yet: due at {@code nextAttemptAt}. */
        PENDING,
        /** The receiver accepted it. */
        DELIVERED,
        /** A silence matched when it was due; not sent. */
        SILENCED,
        /** A re-send made pointless by the alert's resolution, which went out instead. */
        SUPERSEDED,
        /** Given up after {@code give-up-after}, or its receiver was deleted. */
        ABANDONED
    }

    public OutboxEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(transition, "transition");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
        Objects.requireNonNull(status, "status");
        note = note == null ? "" : note;
    }

    /** A new pending entry, due now. */
    public static OutboxEntry pending(Key key, AlertTransition transition, Instant now) {
        return new OutboxEntry(key, transition, now, 0, now, Status.PENDING, "");
    }

    public OutboxEntry finished(Status newStatus, String why) {
        return new OutboxEntry(key, transition, createdAt, attempts, nextAttemptAt, newStatus, why);
    }

    public OutboxEntry failed(Instant retryAt, String why) {
        return new OutboxEntry(key, transition, createdAt, attempts + 1, retryAt, Status.PENDING, why);
    }
}
