package io.pgharvest.model.connection;

import java.util.regex.Pattern;

/**
 * Removes secrets from a message by where they stand, never by what they are: the password of a
 * URI's user information and the value of a {@code password} / {@code sslpassword} key. Searching
 * a message for the password's text would rewrite every word that happens to contain it (a
 * one-character password turned "role" into "rol********") and show a reader where it matched.
 * This is a second wall: pgharvest hands passwords to drivers as properties and never writes them
 * into a message of its own, so a message normally has nothing here to remove.
 */
public final class SecretRedaction {

    /** {@code scheme://user:secret@host}: the password of the user information. */
    private static final Pattern URI_PASSWORD = Pattern.compile("(\\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\\s:@]*:)[^@\\s/]*@");
    /** {@code password=secret}, {@code sslpassword = 'it''s'}: libpq's keyword/value form. */
    private static final Pattern KEY_VALUE_PASSWORD = Pattern.compile(
            "(?i)(\\b(?:ssl)?password\\s*=\\s*)('(?:[^'\\\\]|\\\\.|'')*'|[^\\s&,;)]+)");

    private SecretRedaction() {
    }

    /** Whether {@code text} holds a URI with a password in its user information. */
    static boolean hasUriPassword(String text) {
        return URI_PASSWORD.matcher(text).find();
    }

    /** {@code message} with every password in a URI or a {@code password=} pair replaced by the mask. */
    public static String redact(String message) {
        String redacted = URI_PASSWORD.matcher(message).replaceAll("$1" + ConnectionString.MASK + "@");
        return KEY_VALUE_PASSWORD.matcher(redacted).replaceAll("$1" + ConnectionString.MASK);
    }
}
