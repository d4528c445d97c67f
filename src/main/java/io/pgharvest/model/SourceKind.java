package io.pgharvest.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

/** What sits behind a source's connection string; spelled as in pgwatch's sources.yaml. */
public enum SourceKind {
    POSTGRES("postgres", KindRules.SERVER),
    POSTGRES_CONTINUOUS_DISCOVERY("postgres-continuous-discovery", new DiscoveryKindRules()),
    PGBOUNCER("pgbouncer", new ConsoleKindRules(MetricRules.PGBOUNCER_SQL_KEY)),
    PGPOOL("pgpool", new ConsoleKindRules(MetricRules.PGPOOL_SQL_KEY)),
    /** A Patroni cluster (or every cluster of a namespace) read from etcd; its members are collected. */
    PATRONI("patroni", new DcsKindRules());

    /**
     * pgwatch's former names for {@link #PATRONI}: it reads them as {@code patroni} (the DCS path
     * decides between one cluster and a whole namespace), and so does pgharvest.
     */
    private static final java.util.Map<String, SourceKind> ALIASES = java.util.Map.of(
            "patroni-continuous-discovery", PATRONI,
            "patroni-namespace-discovery", PATRONI);

    private final String label;
    private final KindRules rules;

    SourceKind(String label, KindRules rules) {
        this.label = label;
        this.rules = rules;
    }

    /** What a source of this kind must satisfy beyond every source's rules ({@link SourceRules}). */
    KindRules rules() {
        return rules;
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
        SourceKind alias = ALIASES.get(label.trim().toLowerCase(java.util.Locale.ROOT));
        if (alias != null) {
            return alias;
        }
        throw new IllegalArgumentException("unknown source kind '" + label + "', expected one of "
                + Arrays.stream(values()).map(SourceKind::label).collect(Collectors.joining(", ")));
    }
}
