package io.pgharvest.kind;

/**
 * The outcome of {@link SourceSession#runAlone}. {@code severalStatements} stays false: SQL of
 * several statements is refused before it is sent.
 */
public record AloneRun(FetchedRows rows, boolean severalStatements) {
}
