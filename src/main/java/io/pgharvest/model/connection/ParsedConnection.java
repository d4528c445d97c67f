package io.pgharvest.model.connection;

import java.util.List;
import java.util.Map;

/**
 * What a source's connection text parses to, in the {@link ConnectionSyntax} of the source's kind: a
 * PostgreSQL connection ({@link ConnectionString}, also used for the pooler consoles), or whatever a
 * kind's own syntax reads (the address of a registry that lists the servers). Every form holds
 * secrets, so this is also the one place that hides them: {@link #masked()} for showing the value,
 * {@link #redact(String)} for any other text (a driver's error message), removing them by structure.
 */
public interface ParsedConnection {

    /** The syntax this was read in; {@code syntax().parse(render())} gives an equal value. */
    ConnectionSyntax syntax();

    /** The full text including passwords, in the form it was parsed from. For storage only. */
    String render();

    /** Like {@link #render()} with every secret replaced by {@link ConnectionString#MASK}: safe to show. */
    String masked();

    /** Non-empty secret values (passwords), in no particular order. */
    List<String> secrets();

    /** A copy with the password of the PostgreSQL sessions it leads to set to {@code password}. */
    ParsedConnection withSessionPassword(String password);

    /**
     * The libpq parameters (other than host, port, dbname, user and password) that every PostgreSQL
     * session it leads to is opened with: {@link HostFileParameters} checks them.
     */
    Map<String, String> sessionParameters();

    /**
     * Whether a password in it is {@link ConnectionString#MASK}: text sent back as the API showed it,
     * which the API replaces by the stored password or refuses, and never stores.
     */
    boolean passwordIsMask();

    /**
     * {@code message} with passwords removed by structure ({@link SecretRedaction}): a driver gets
     * the password as a property and never quotes it, so the message's words are left as they are.
     */
    default String redact(String message) {
        return SecretRedaction.redact(message);
    }
}
