package io.pgharvest.alert.api;

import io.pgharvest.alert.notify.KnownSilences;
import io.pgharvest.alert.store.AlertState;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A pending or firing alert: its labels ({@code alertname}, {@code source}, {@code severity}, the
 * rule's labels and the row's tags), rendered annotations, since when its condition holds and
 * since when it fires (null while pending), and the value that made it true. Every text is data,
 * to be shown as text. {@code silencedBy} lists the silences active now whose matchers hold for its
 * labels: pgharvest's (its webhook, Slack and e-mail receivers hold it back) and Alertmanager's as
 * the silences list last fetched them (Alertmanager holds it back itself).
 */
record AlertResponse(String fingerprint, String alertname, String source, String severity, String state,
        Map<String, String> labels, Map<String, String> annotations, Instant activeSince, Instant firingSince,
        String value, List<SilencedBy> silencedBy) {

    /**
     * A silence holding the alert.
     *
     * @param origin {@code pgharvest} or {@code alertmanager}
     * @param receiver for Alertmanager's: the receiver whose Alertmanager has it; else null
     */
    record SilencedBy(String id, String origin, String receiver, String author, Instant endsAt) {
        static SilencedBy of(KnownSilences.Holding h) {
            return new SilencedBy(h.silence().id(), h.silence().origin(), h.receiver(), h.silence().author(),
                    h.silence().endsAt());
        }
    }

    static AlertResponse of(AlertState s, KnownSilences.Snapshot silences, Instant now) {
        return new AlertResponse(s.fingerprint(), s.rule(), s.source(), s.labels().getOrDefault("severity", ""),
                s.status().name().toLowerCase(Locale.ROOT), s.labels(), s.annotations(), s.activeSince(),
                s.firingSince(), s.value(), silences.silencing(s.labels(), now).stream().map(SilencedBy::of).toList());
    }
}
