package io.pgharvest.alert.evaluation;

import java.util.Map;

/** One alert as the evaluation of a row found it: the rule's condition holds for it. */
public record Observation(String fingerprint, String rule, String source, Map<String, String> labels,
        Map<String, String> annotations, String value) {

    public Observation {
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
    }
}
