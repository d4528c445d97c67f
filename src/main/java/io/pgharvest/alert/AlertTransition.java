package io.pgharvest.alert;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One change of an alert that receivers hear of: it started firing, it is still firing (a
 * re-send, as Prometheus re-sends to Alertmanager), or it resolved. Pending alerts are never
 * sent.
 *
 * <p>{@code (fingerprint, startsAt, state)} identifies a transition: evaluation may hand the same
 * transition on twice (after a crash between the hand-over and saving its own state), and the
 * notification side keeps one of them.
 *
 * @param fingerprint stable identity of the alert: rule name, source and the row's tags, hashed
 * @param labels {@code alertname}, {@code source}, {@code severity}, the rule's labels and the
 *     row's tags; every value is text from a database or a user, to be rendered inert
 * @param annotations {@code summary}, {@code description}, {@code runbook} (rendered templates)
 * @param startsAt when the alert started firing (after its {@code for})
 * @param endsAt when it resolved; for a firing alert the time after which it counts as resolved
 *     unless re-sent (Prometheus sends four evaluation intervals ahead)
 * @param value the value that made the condition true, as text, for messages; may be empty
 */
public record AlertTransition(String fingerprint, State state, Map<String, String> labels,
        Map<String, String> annotations, Instant startsAt, Instant endsAt, String value) {

    public enum State { FIRING, RESOLVED }

    public AlertTransition {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(state, "state");
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
        Objects.requireNonNull(startsAt, "startsAt");
        Objects.requireNonNull(endsAt, "endsAt");
        value = value == null ? "" : value;
    }

    /**
     * The stable identity of this transition's notification: the alert's fingerprint, when it
     * started firing and whether it fires or resolved. The outbox's entry holds the transition, so
     * a notification sent again (a crash after the receiver accepted it and before the outbox
     * marked it) carries the same id, and a receiver may drop the repeat.
     */
    public String notificationId() {
        return fingerprint + "-" + startsAt.toEpochMilli() + "-" + state.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The rule's name: label {@code alertname}. */
    public String rule() {
        return labels.getOrDefault("alertname", "");
    }
}
