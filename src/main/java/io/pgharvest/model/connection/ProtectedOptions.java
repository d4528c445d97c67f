package io.pgharvest.model.connection;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The libpq {@code options} parameter may set server settings for the session ({@code -c name=value},
 * {@code -cname=value}, {@code --name=value}), but not the ones pgharvest relies on: the read-only
 * default and the time limits every session gets, the role, the schema search path, and what the
 * driver's lexer assumes (string syntax, encoding). pgharvest appends its own values after the
 * operator's, so they would win anyway; refusing says so at once instead of ignoring a value.
 */
final class ProtectedOptions {

    static final Set<String> PROTECTED = Set.of("default_transaction_read_only", "transaction_read_only",
            "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "role",
            "session_authorization", "search_path", "standard_conforming_strings", "client_encoding",
            "application_name", "session_replication_role", "default_transaction_isolation",
            "transaction_isolation");

    private ProtectedOptions() {
    }

    /** Throws {@link InvalidConnectionStringException} when {@code options} sets a protected setting. */
    static void validate(String options) {
        List<String> words = words(options);
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            String assignment = null;
            if (word.equals("-c") && i + 1 < words.size()) {
                assignment = words.get(++i);
            } else if (word.startsWith("--")) {
                assignment = word.substring(2);
            } else if (word.startsWith("-c")) {
                assignment = word.substring(2);
            }
            if (assignment != null) {
                int equals = assignment.indexOf('=');
                String name = (equals < 0 ? assignment : assignment.substring(0, equals))
                        .strip().replace('-', '_').toLowerCase(Locale.ROOT);
                if (PROTECTED.contains(name)) {
                    throw new InvalidConnectionStringException("options must not set " + name
                            + ": pgharvest sets it for every session (read-only transactions, time limits,"
                            + " role and parsing must stay as pgharvest relies on them)");
                }
            }
        }
    }

    /** The words PostgreSQL's pg_split_opts reads: split at white space, a backslash keeps the next character. */
    private static List<String> words(String options) {
        var words = new ArrayList<String>();
        var word = new StringBuilder();
        for (int i = 0; i < options.length(); i++) {
            char c = options.charAt(i);
            if (c == '\\' && i + 1 < options.length()) {
                word.append(options.charAt(++i));
            } else if (Character.isWhitespace(c)) {
                if (!word.isEmpty()) {
                    words.add(word.toString());
                    word.setLength(0);
                }
            } else {
                word.append(c);
            }
        }
        if (!word.isEmpty()) {
            words.add(word.toString());
        }
        return words;
    }
}
