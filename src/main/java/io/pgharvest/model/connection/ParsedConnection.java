package io.pgharvest.model.connection;

import java.util.List;

/**
 * What a source's connection text parses to: a PostgreSQL connection ({@link ConnectionString},
 * also used for the pooler consoles) or a DCS address ({@link DcsAddress}, Patroni). Both hold
 * secrets, so this is also the one place that hides them: {@link #masked()} for showing the value,
 * {@link #redact(String)} for any other text (a driver's error message), removing them by structure.
 */
public sealed interface ParsedConnection permits ConnectionString, DcsAddress {

    /** The full text including passwords, in the form it was parsed from. For storage only. */
    String render();

    /** Like {@link #render()} with every secret replaced by {@link ConnectionString#MASK}: safe to show. */
    String masked();

    /** Non-empty secret values (passwords), in no particular order. */
    List<String> secrets();

    /** A copy with the password of the PostgreSQL sessions it leads to set to {@code password}. */
    ParsedConnection withSessionPassword(String password);

    /**
     * {@code message} with passwords removed by structure ({@link SecretRedaction}): a driver gets
     * the password as a property and never quotes it, so the message's words are left as they are.
     */
    default String redact(String message) {
        return SecretRedaction.redact(message);
    }
}
