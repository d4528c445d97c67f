package io.pgharvest.model;

import java.util.List;

/**
 * The rules a source must satisfy because of its kind: what its connection string must be, and
 * what of the selection its endpoint can act on. Each {@link SourceKind} names its rules and
 * {@link SourceRules} applies them with the rules every source shares, so no rule branches on the
 * kind. They live in the kernel because every write to the store is checked with them, without
 * the engine that opens the sessions.
 */
interface KindRules {

    /** Problems of {@code connStr}, which is neither blank nor too long. */
    void checkConnection(String connStr, List<FieldProblem> problems);

    /** Problems of the selection and options for this kind (after the selection's own checks). */
    default void checkUse(Source source, ConfigSnapshot config, List<FieldProblem> problems) {
    }

    /** Whether the kind lists databases by name patterns ({@code includePattern}, {@code excludePattern}). */
    default boolean selectsDatabases() {
        return false;
    }
}
