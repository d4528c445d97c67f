package io.pgharvest.alert.rule;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Optional;

/** How urgent an alert is; the label {@code severity} of every alert of the rule. */
public enum Severity {
    WARNING, CRITICAL;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The severity spelled {@code text} ({@code warning}, {@code critical}), if it is one. */
    public static Optional<Severity> of(String text) {
        for (Severity severity : values()) {
            if (severity.label().equals(text)) {
                return Optional.of(severity);
            }
        }
        return Optional.empty();
    }
}
