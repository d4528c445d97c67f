package io.pgharvest.support;

import java.util.List;
import tools.jackson.core.JacksonException;

/** Spells where in a JSON or YAML document a Jackson error sits, the way problem fields are named. */
public final class JacksonPaths {

    private JacksonPaths() {
    }

    /** E.g. {@code metrics.db_stats}, {@code [2].kind} or {@code gauges[0]}; empty at the document root. */
    public static String describe(List<JacksonException.Reference> path) {
        var text = new StringBuilder();
        for (JacksonException.Reference reference : path) {
            if (reference.getIndex() >= 0) {
                text.append('[').append(reference.getIndex()).append(']');
            } else if (reference.getPropertyName() != null) {
                text.append(text.isEmpty() ? "" : ".").append(reference.getPropertyName());
            }
        }
        return text.toString();
    }
}
