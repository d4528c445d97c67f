package io.pgharvest.model.connection;

/**
 * How the connection text of a kind of source is written and read. A kind names its syntax in its
 * rules ({@code model.KindRules#connectionSyntax()}); most use libpq's ({@link ConnectionString#SYNTAX}),
 * a kind that reaches its servers through something else (a registry of cluster members) brings its
 * own. One instance per syntax: {@code model.SourceConnection} compares them by identity to know
 * whether a value was read the way a source's kind reads it.
 */
public interface ConnectionSyntax {

    /**
     * Parses {@code text}.
     *
     * @throws InvalidConnectionStringException naming what is wrong, never quoting a password
     */
    ParsedConnection parse(String text);

    /** An example of the form, passwords as placeholders: what the console's form shows in an empty field. */
    String example();

    /** In a few words, what the text names and how it is written: the hint beside the console's field. */
    String description();
}
