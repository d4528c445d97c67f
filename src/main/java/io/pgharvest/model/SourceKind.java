package io.pgharvest.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

/** What sits behind a source's connection string; spelled as in pgwatch's sources.yaml. */
public enum SourceKind {
    POSTGRES("postgres"),
    POSTGRES_CONTINUOUS_DISCOVERY("postgres-continuous-discovery"),
    PGBOUNCER("pgbouncer"),
    PGPOOL("pgpool");

    private final String label;

    SourceKind(String label) {
        this.label = label;
    }

    @JsonValue
    public String label() {
        return label;
    }

    /** Parses the pgwatch spelling; {@code null} means the default, {@code postgres}. */
    @JsonCreator
    public static SourceKind fromLabel(String label) {
        if (label == null || label.isBlank()) {
            return POSTGRES;
        }
        for (SourceKind kind : values()) {
            if (kind.label.equalsIgnoreCase(label.trim())) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown source kind '" + label + "', expected one of "
                + Arrays.stream(values()).map(SourceKind::label).collect(Collectors.joining(", ")));
    }
}
