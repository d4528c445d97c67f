package io.pgharvest.alert.store;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * Where one alert (a rule, a source, a row's tags) stands: pending while its condition holds for
 * less than the rule's {@code for}, firing after. Kept in the alert storage so that a restart or
 * a takeover neither fires it again nor forgets it.
 *
 * @param activeSince when the condition started to hold
 * @param firingSince when it started firing (the notification's {@code startsAt}); null while pending
 * @param lastTrue the last evaluation at which the condition held (for {@code keepFiringFor})
 * @param value the value that made the condition true, as text
 */
public record AlertState(String fingerprint, String rule, String source, Status status, Map<String, String> labels,
        Map<String, String> annotations, Instant activeSince, Instant firingSince, Instant lastTrue, String value) {

    public enum Status { PENDING, FIRING }

    public AlertState {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(status, "status");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        value = value == null ? "" : value;
    }

    public boolean firing() {
        return status == Status.FIRING;
    }

    /** This state, seen true again at {@code at} with {@code newValue} and annotations. */
    public AlertState heldAt(Instant at, String newValue, Map<String, String> newAnnotations) {
        return new AlertState(fingerprint, rule, source, status, labels, newAnnotations, activeSince, firingSince, at,
                newValue);
    }

    /** This state, firing from {@code at}. */
    public AlertState firingFrom(Instant at) {
        return new AlertState(fingerprint, rule, source, Status.FIRING, labels, annotations, activeSince, at, lastTrue,
                value);
    }
}
