package io.pgharvest.model;

import java.util.List;

/**
 * What a source's kind decides in the kernel: how its connection string reads
 * ({@link SourceConnection}) and what of the selection and options its endpoint can act on. Each
 * {@link SourceKind} names its rules and {@link SourceRules} applies them with the rules every
 * source shares, so no rule branches on the kind. They live in the kernel because every write to
 * the store is checked with them, without the engine that opens the sessions.
 */
interface KindRules {

    /** A PostgreSQL server (the default). */
    KindRules SERVER = new KindRules() {
    };

    /** Whether the connection string names a DCS ({@code DcsAddress}) rather than a server. */
    default boolean readsDcsAddress() {
        return false;
    }

    /** Problems of the selection and options for this kind (after the selection's own checks). */
    default void checkUse(Source source, ConfigSnapshot config, List<FieldProblem> problems) {
    }

    /** Whether the kind lists databases by name patterns ({@code includePattern}, {@code excludePattern}). */
    default boolean selectsDatabases() {
        return false;
    }
}
