package io.pgharvest.alert.api;

import io.pgharvest.alert.store.AlertState;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * A pending or firing alert: its labels ({@code alertname}, {@code source}, {@code severity}, the
 * rule's labels and the row's tags), rendered annotations, since when its condition holds and
 * since when it fires (null while pending), and the value that made it true. Every text is data,
 * to be shown as text.
 */
record AlertResponse(String fingerprint, String alertname, String source, String severity, String state,
        Map<String, String> labels, Map<String, String> annotations, Instant activeSince, Instant firingSince,
        String value) {

    static AlertResponse of(AlertState s) {
        return new AlertResponse(s.fingerprint(), s.rule(), s.source(), s.labels().getOrDefault("severity", ""),
                s.status().name().toLowerCase(Locale.ROOT), s.labels(), s.annotations(), s.activeSince(),
                s.firingSince(), s.value());
    }
}
