package io.pgharvest.alert.notify.dispatch;


import io.pgharvest.alert.AlertTransition;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/** Transitions as evaluation hands them over. */
public final class Transitions {

    private Transitions() {
    }

    public static AlertTransition firing(String rule, String source, String severity, Instant startsAt) {
        return new AlertTransition(rule + "/" + source, AlertTransition.State.FIRING, labels(rule, source, severity),
                Map.of("summary", rule + " on " + source, "description", "it went wrong"), startsAt,
                startsAt.plus(4, ChronoUnit.MINUTES), "42");
    }

    public static AlertTransition resolved(AlertTransition firing, Instant at) {
        return new AlertTransition(firing.fingerprint(), AlertTransition.State.RESOLVED, firing.labels(),
                firing.annotations(), firing.startsAt(), at, firing.value());
    }

    /** A source name as a hostile database could make it: a mention, markup, ANSI red, a forged line. */
    public static final String HOSTILE = "db1 <!channel> <b>&amp;</b> \u001b[31mred\u001b[0m\nSubject: forged";

    /** A firing whose source (in its labels and summary) is {@link #HOSTILE}, with a runbook and a value. */
    public static AlertTransition hostileFiring(Instant start) {
        var labels = new LinkedHashMap<String, String>();
        labels.put("alertname", "long_transaction");
        labels.put("source", HOSTILE);
        labels.put("severity", "critical");
        return new AlertTransition("fp-hostile", AlertTransition.State.FIRING, labels,
                Map.of("summary", "open for 2h on " + HOSTILE, "runbook", "https://runbooks.example.org/long"),
                start, start.plusSeconds(240), "7200");
    }

    public static Map<String, String> labels(String rule, String source, String severity) {
        var labels = new LinkedHashMap<String, String>();
        labels.put("alertname", rule);
        labels.put("source", source);
        labels.put("severity", severity);
        return labels;
    }
}
