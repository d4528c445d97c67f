package io.pgharvest.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * What sits behind a source's connection string, by the name pgwatch's sources.yaml gives it. The
 * kinds are the {@link KindRules} the kind packages register (see there); one instance per kind, so
 * kinds compare by identity. The kernel names none of them.
 */
public final class SourceKind {

    private final String label;
    private final KindRules rules;

    private SourceKind(KindRules rules) {
        this.label = rules.label();
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

    /** How a connection string of this kind is written, passwords as placeholders (the console's form shows it). */
    public String connectionExample() {
        return rules.connectionSyntax().example();
    }

    /** What a connection string of this kind names and how it is written, in a few words (for the console's form). */
    public String connectionHint() {
        return rules.connectionHint();
    }

    /**
     * The native metrics this kind's discovery adds to every source it finds, whatever the selection:
     * name -> what it collects ({@link KindRules#addedNativeMetrics()}).
     */
    public Map<String, String> addedNativeMetrics() {
        return rules.addedNativeMetrics();
    }

    /** Every registered kind, in the order of the registration file (the default first there). */
    /** {@link KindRules#collectsUnselected}: why a pgwatch selection naming {@code metric} needs no definition. */
    public Optional<String> collectsUnselected(String metric) {
        return rules.collectsUnselected(metric);
    }

    public static List<SourceKind> values() {
        return Registered.KINDS;
    }

    /** The kind of a source that names none: a PostgreSQL server, as in pgwatch's sources.yaml. */
    public static SourceKind defaultKind() {
        return Registered.DEFAULT;
    }

    /** Parses the pgwatch spelling (a former one too); {@code null} or blank means {@link #defaultKind()}. */
    @JsonCreator
    public static SourceKind fromLabel(String label) {
        if (label == null || label.isBlank()) {
            return defaultKind();
        }
        SourceKind kind = Registered.BY_LABEL.get(label.trim().toLowerCase(Locale.ROOT));
        if (kind == null) {
            throw new IllegalArgumentException("unknown source kind '" + label + "', expected one of "
                    + values().stream().map(SourceKind::label).collect(Collectors.joining(", ")));
        }
        return kind;
    }

    @Override
    public String toString() {
        return label;
    }

    /**
     * The registered kinds, loaded once when first asked for. A registration that names one label
     * or one SQL key twice, or no default or two, fails here rather than letting one kind shadow
     * another.
     */
    private static final class Registered {

        static final List<SourceKind> KINDS;
        static final Map<String, SourceKind> BY_LABEL = new HashMap<>();
        static final SourceKind DEFAULT;

        static {
            var kinds = new ArrayList<SourceKind>();
            SourceKind defaultKind = null;
            for (KindRules rules : ServiceLoader.load(KindRules.class, SourceKind.class.getClassLoader())) {
                var kind = new SourceKind(rules);
                kinds.add(kind);
                register(kind.label, kind);
                rules.formerLabels().forEach(former -> register(former, kind));
                rules.sqlKey().ifPresent(key -> kinds.stream().filter(other -> other != kind
                        && other.rules.sqlKey().equals(rules.sqlKey())).findFirst().ifPresent(other -> {
                            throw new IllegalStateException("kinds " + other + " and " + kind + " claim SQL key " + key);
                        }));
                rules.addedNativeMetrics().keySet().forEach(name -> {
                    if (NativeNames.isKnown(name) || kinds.stream().anyMatch(other -> other != kind
                            && other.rules.addedNativeMetrics().containsKey(name))) {
                        throw new IllegalStateException("kind " + kind + " adds native metric '" + name
                                + "', which another kind or the catalog's native metrics already name");
                    }
                });
                if (rules.isDefault()) {
                    if (defaultKind != null) {
                        throw new IllegalStateException("two default kinds: " + defaultKind + " and " + kind);
                    }
                    defaultKind = kind;
                }
            }
            if (defaultKind == null) {
                throw new IllegalStateException("no default kind among the registered kinds " + kinds
                        + " (META-INF/services/" + KindRules.class.getName() + ")");
            }
            KINDS = List.copyOf(kinds);
            DEFAULT = defaultKind;
        }

        private static void register(String label, SourceKind kind) {
            SourceKind other = BY_LABEL.put(label.toLowerCase(Locale.ROOT), kind);
            if (other != null) {
                throw new IllegalStateException("kind name '" + label + "' registered twice: by "
                        + other.rules.getClass().getName() + " and " + kind.rules.getClass().getName());
            }
        }
    }
}
