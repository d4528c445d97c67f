package io.pgharvest.model;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.connection.DcsAddress;
import io.pgharvest.model.connection.InvalidConnectionStringException;
import io.pgharvest.model.connection.ParsedConnection;
import java.util.Objects;
import java.util.Optional;

/**
 * A source's {@code connStr}, parsed once where it enters (an API request, a file, the store, a
 * discoverer) and then handed around as this value, so nothing downstream parses the text again.
 *
 * <p>How the text parses follows the source's kind: a {@link DcsAddress} for a kind whose rules read
 * one ({@link KindRules#readsDcsAddress()}: Patroni), a {@link ConnectionString} for every other kind. The text is kept as written (it is what the
 * store writes back, byte for byte). Text that does not parse is still a value, carrying the parse
 * error: {@link SourceRules} reports it against the field {@code connStr}, so a request with a bad
 * connection string and other problems gets every problem named at once.
 *
 * <p>The text holds secrets: only {@link #masked()} may be shown, and {@link #redact(String)} is
 * the one way to clean other text (errors) of them.
 */
public final class SourceConnection {

    private final String text;
    private final boolean dcs;
    private final ParsedConnection parsed;
    private final InvalidConnectionStringException problem;

    private SourceConnection(String text, boolean dcs, ParsedConnection parsed,
            InvalidConnectionStringException problem) {
        this.text = text;
        this.dcs = dcs;
        this.parsed = parsed;
        this.problem = problem;
    }

    /** Parses {@code text} the way a source of {@code kind} (null: postgres) reads it; never throws for bad text. */
    public static SourceConnection parse(SourceKind kind, String text) {
        Objects.requireNonNull(text, "connStr");
        boolean dcs = kind != null && kind.rules().readsDcsAddress();
        try {
            return new SourceConnection(text, dcs, dcs ? DcsAddress.parse(text) : ConnectionString.parse(text), null);
        } catch (InvalidConnectionStringException e) {
            return new SourceConnection(text, dcs, null, e);
        }
    }

    /** A value already parsed (a discoverer derives one connection from another); the text is its rendering. */
    public static SourceConnection of(ParsedConnection parsed) {
        return new SourceConnection(parsed.render(), parsed instanceof DcsAddress, parsed, null);
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
     * The PostgreSQL connection (every kind but Patroni).
     *
     * @throws InvalidConnectionStringException when the text does not parse, or names a DCS
     */
    public ConnectionString connectionString() {
        if (parsed instanceof ConnectionString connection) {
            return connection;
        }
        throw problem != null ? problem
                : new InvalidConnectionStringException("a DCS address is not a PostgreSQL connection string");
    }

    /**
     * The DCS address of a Patroni source.
     *
     * @throws InvalidConnectionStringException when the text does not parse, or is not a DCS address
     */
    public DcsAddress dcsAddress() {
        if (parsed instanceof DcsAddress address) {
            return address;
        }
        throw problem != null ? problem
                : new InvalidConnectionStringException("a PostgreSQL connection string is not a DCS address");
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
     * (for a DCS address: the members' password). Unchanged when {@code password} is null or the
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
        return dcs == (kind != null && kind.rules().readsDcsAddress());
    }

    /** Equal when the text is: the parsed value follows from the text and the source's kind. */
    @Override
    public boolean equals(Object other) {
        return other instanceof SourceConnection that && text.equals(that.text) && dcs == that.dcs;
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
