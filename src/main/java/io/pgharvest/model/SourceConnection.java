package io.pgharvest.model;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.ConnectionSyntax;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import io.pgharvest.model.connection.ParsedConnection;
import java.util.Objects;
import java.util.Optional;

/**
 * A source's {@code connStr}, parsed once where it enters (an API request, a file, the store, a
 * discoverer) and then handed around as this value, so nothing downstream parses the text again.
 *
 * <p>How the text parses follows the source's kind: in the {@link ConnectionSyntax} its rules name
 * ({@link KindRules#connectionSyntax()}), a {@link ConnectionString} unless the kind brings a syntax
 * of its own. The text is kept as written (it is what the
 * store writes back, byte for byte). Text that does not parse is still a value, carrying the parse
 * error: {@link SourceRules} reports it against the field {@code connStr}, so a request with a bad
 * connection string and other problems gets every problem named at once.
 *
 * <p>The text holds secrets: only {@link #masked()} may be shown, and {@link #redact(String)} is
 * the one way to clean other text (errors) of them.
 */
public final class SourceConnection {

    private final String text;
    private final ConnectionSyntax syntax;
    private final ParsedConnection parsed;
    private final InvalidConnectionStringException problem;

    private SourceConnection(String text, ConnectionSyntax syntax, ParsedConnection parsed,
            InvalidConnectionStringException problem) {
        this.text = text;
        this.syntax = syntax;
        this.parsed = parsed;
        this.problem = problem;
    }

    /** Parses {@code text} the way a source of {@code kind} (null: postgres) reads it; never throws for bad text. */
    public static SourceConnection parse(SourceKind kind, String text) {
        Objects.requireNonNull(text, "connStr");
        ConnectionSyntax syntax = syntaxOf(kind);
        try {
            return new SourceConnection(text, syntax, syntax.parse(text), null);
        } catch (InvalidConnectionStringException e) {
            return new SourceConnection(text, syntax, null, e);
        }
    }

    /** A value already parsed (a discoverer derives one connection from another); the text is its rendering. */
    public static SourceConnection of(ParsedConnection parsed) {
        return new SourceConnection(parsed.render(), parsed.syntax(), parsed, null);
    }

    /** The text as written, passwords included: for storage only. */
    public String text() {
        return text;
    }

    /** The parsed value; empty when the text does not parse (see {@link #problem()}). */
    public Optional<ParsedConnection> parsed() {
        return Optional.ofNullable(parsed);
    }

    /** Why the text does not parse; the message never contains a password. */
    public Optional<InvalidConnectionStringException> problem() {
        return Optional.ofNullable(problem);
    }

    /**
     * The PostgreSQL connection (of every kind that reads libpq's syntax).
     *
     * @throws InvalidConnectionStringException when the text does not parse, or is in another syntax
     */
    public ConnectionString connectionString() {
        return parsedAs(ConnectionString.class);
    }

    /**
     * The parsed value as the form its kind's syntax reads: what the kind's own code asks for.
     *
     * @throws InvalidConnectionStringException when the text does not parse, or parsed to another form
     */
    public <T extends ParsedConnection> T parsedAs(Class<T> form) {
        if (form.isInstance(parsed)) {
            return form.cast(parsed);
        }
        throw problem != null ? problem : new InvalidConnectionStringException("the connection string is written as "
                + syntax.description() + ", not as " + form.getSimpleName() + " reads it");
    }

    /**
     * The text with its secrets replaced by {@link ConnectionString#MASK}. Text that does not parse
     * is withheld entirely ({@link ConnectionString#MASK}), since where its password sits is unknown.
     */
    public String masked() {
        return parsed != null ? parsed.masked() : ConnectionString.MASK;
    }

    /** {@code message} with this connection's secrets replaced by {@link ConnectionString#MASK}. */
    public String redact(String message) {
        return parsed != null ? parsed.redact(message) : message;
    }

    /**
     * A copy whose sessions log in with {@code password}, replacing any password in the text
     * (for a syntax that names no server: the password of the sessions it leads to). Unchanged when {@code password} is null or the
     * text does not parse (validation then reports {@code connStr}).
     */
    public SourceConnection withPassword(String password) {
        if (password == null || parsed == null) {
            return this;
        }
        return of(parsed.withSessionPassword(password));
    }

    /** Whether this was parsed the way a source of {@code kind} reads its connection. */
    boolean readAs(SourceKind kind) {
        return syntax == syntaxOf(kind);
    }

    private static ConnectionSyntax syntaxOf(SourceKind kind) {
        return kind != null ? kind.rules().connectionSyntax() : ConnectionString.SYNTAX;
    }

    /** Equal when the text and the syntax are: the parsed value follows from them. */
    @Override
    public boolean equals(Object other) {
        return other instanceof SourceConnection that && text.equals(that.text) && syntax == that.syntax;
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The masked text: safe to log. */
    @Override
    public String toString() {
        return masked();
    }
}
