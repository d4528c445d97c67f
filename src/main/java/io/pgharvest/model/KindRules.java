package io.pgharvest.model;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.ConnectionSyntax;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The kernel's one view of a kind of source: its name, how its connection string reads
 * ({@link SourceConnection}) and what of the selection and options its endpoint can act on.
 * {@link SourceRules} applies these rules with the rules every source shares, so no rule branches
 * on the kind.
 *
 * <p>Each kind's package under {@code kind} contributes one implementation, listed in
 * {@code META-INF/services/io.pgharvest.model.KindRules} (a public class with a public no-argument
 * constructor). They are found with {@link java.util.ServiceLoader} rather than as Spring beans
 * because every write to the store, every file read at start-up and every import is checked with
 * them, with or without the engine or a Spring context; the order of that file is the order in
 * which the API and the console list the kinds.
 */
public interface KindRules {

    /** The kind's name, as {@code kind} of pgwatch's sources.yaml and of the API spells it. */
    String label();

    /** Whether a source that names no kind is of this kind; exactly one kind is. */
    default boolean isDefault() {
        return false;
    }

    /** Names this kind was known by, read as {@link #label()} (pgwatch's former spellings). */
    default Set<String> formerLabels() {
        return Set.of();
    }

    /**
     * How the connection string of this kind is written and read ({@link SourceConnection}): libpq's
     * by default; a kind whose string names something other than a server brings its own syntax
     * (one instance, returned on every call).
     */
    default ConnectionSyntax connectionSyntax() {
        return ConnectionString.SYNTAX;
    }

    /** What the console's form says beside the connection string of this kind. */
    default String connectionHint() {
        return connectionSyntax().description();
    }

    /**
     * Native metrics that the kind's discovery adds to every source it finds, whatever the selection,
     * and that no metric definition names: name -> what it collects. A source of such a kind collects
     * something without a preset or intervals of its own.
     */
    default Map<String, String> addedNativeMetrics() {
        return Map.of();
    }

    /**
     * Why a selection being imported from pgwatch that names {@code metric}, which no definition
     * has, loses nothing for sources of this kind (the kind collects it without a selection);
     * empty when the kind does not collect it.
     */
    default Optional<String> collectsUnselected(String metric) {
        return Optional.empty();
    }

    /** Whether the kind lists databases by name patterns ({@code includePattern}, {@code excludePattern}). */
    default boolean selectsDatabases() {
        return false;
    }

    /**
     * The key of a metric's {@code sqls} written for this kind, when it is not a PostgreSQL server
     * (whose SQL is keyed by major version): pgwatch's pooler keys. {@link MetricRules} accepts it.
     */
    default OptionalInt sqlKey() {
        return OptionalInt.empty();
    }

    /** Problems of the selection and options for this kind (after the selection's own checks). */
    default void checkUse(Source source, ConfigSnapshot config, List<FieldProblem> problems) {
    }
}
