package io.pgharvest.alert.notify.dispatch;


import io.pgharvest.alert.AlertTransition;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/** Transitions as evaluation hands them over. */
final class Transitions {

    private Transitions() {
    }

    static AlertTransition firing(String rule, String source, String severity, Instant startsAt) {
        return new AlertTransition(rule + "/" + source, AlertTransition.State.FIRING, labels(rule, source, severity),
                Map.of("summary", rule + " on " + source, "description", "it went wrong"), startsAt,
                startsAt.plus(4, ChronoUnit.MINUTES), "42");
    }

    static AlertTransition resolved(AlertTransition firing, Instant at) {
        return new AlertTransition(firing.fingerprint(), AlertTransition.State.RESOLVED, firing.labels(),
                firing.annotations(), firing.startsAt(), at, firing.value());
    }

    static Map<String, String> labels(String rule, String source, String severity) {
        var labels = new LinkedHashMap<String, String>();
        labels.put("alertname", rule);
        labels.put("source", source);
        labels.put("severity", severity);
        return labels;
    }
}
