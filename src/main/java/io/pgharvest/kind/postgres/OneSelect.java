package io.pgharvest.kind.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Parser;

/**
 * Makes PostgreSQL itself hold a metric to one reading statement, whatever pgharvest's own
 * check ({@link io.pgharvest.model.sql.MetricSql}) made of its text.
 *
 * <p>Each metric is sent as the body of a subquery, {@code select * from (<metric>) as metric},
 * in a Parse message of its own (pgjdbc's extended protocol, which pgharvest forces). The server
 * then refuses, by its own grammar: a second command in the message ("cannot insert multiple
 * commands into a prepared statement"), any utility command (COMMIT, SET TRANSACTION, CALL,
 * PREPARE, LISTEN, COPY cannot stand in a FROM clause), SELECT INTO and data-modifying WITH
 * (which must be at the top level). What is left is a SELECT, inside the tick's read-only
 * transaction, that can only call functions.
 *
 * <p>pgjdbc splits a text into Parse messages at semicolons by its own lexer. Before a metric
 * is sent, {@link #requireOneParsePerPart} runs that very lexer over it between a BEGIN and a
 * ROLLBACK and refuses unless it yields exactly one message per part, each the part itself: a
 * text pgjdbc would split (a comment ended by a carriage return, a dollar sign after a non-ASCII
 * character, an unclosed quote swallowing the separator) is never sent. A combination of such
 * parts splits the same way (QueryPipeline#mayHoldEscapes says why, and when it is lexed whole).
 *
 * <p>{@code SHOW} cannot be a subquery; it is sent as written only in its plain form (one
 * setting name in ASCII letters, digits, '_' and '.'), which leaves no room for anything else.
 */
final class OneSelect {

    private static final Pattern PLAIN_SHOW =
            Pattern.compile("\\s*show\\s+[A-Za-z_][A-Za-z0-9_.]*\\s*", Pattern.CASE_INSENSITIVE);
    /** What precedes a metric's own text in its statement (server error positions count it). */
    static final String PREFIX = "select * from (\n";

    private OneSelect() {
    }

    /** Why {@code sql} cannot be sent as one statement, or empty when {@link #of} may wrap it. */
    static Optional<String> problem(String sql) {
        String body = body(sql);
        if (startsWithShow(body) && !PLAIN_SHOW.matcher(body).matches()) {
            return Optional.of("is a SHOW that is not plain: only SHOW followed by one setting name is sent as written");
        }
        return Optional.empty();
    }

    /** The text sent for metric {@code sql}: a subquery, or a plain SHOW as written. */
    static String of(String sql) {
        String body = body(sql);
        if (startsWithShow(body)) {
            if (!PLAIN_SHOW.matcher(body).matches()) {
                throw new IllegalArgumentException("not a plain SHOW"); // refused earlier by problem()
            }
            return body.strip();
        }
        // Line breaks around the body: a trailing line comment ends before the closing parenthesis.
        return PREFIX + body + "\n) as metric";
    }

    /**
     * {@code sql} without trailing semicolons and white space. A loop, not a regular expression:
     * {@code [\s;]+$} retried its match at every run of white space of a long text, and was the
     * biggest part of checking a metric.
     */
    private static String body(String sql) {
        int end = sql.length();
        while (end > 0 && (sql.charAt(end - 1) == ';' || Character.isWhitespace(sql.charAt(end - 1)))) {
            end--;
        }
        return sql.substring(0, end);
    }

    private static boolean startsWithShow(String body) {
        String head = body.stripLeading();
        return head.length() >= 4 && head.substring(0, 4).toLowerCase(Locale.ROOT).equals("show")
                && (head.length() == 4 || !Character.isLetterOrDigit(head.charAt(4)) && head.charAt(4) != '_');
    }

    /**
     * Refuses {@code joined} unless pgjdbc turns it into exactly one Parse message per part, each
     * holding that part: the guarantee that the server sees every metric on its own.
     */
    static void requireOneParsePerPart(Connection connection, String joined, List<String> parts) throws SQLException {
        requireOneParsePerPart(connection.unwrap(BaseConnection.class).getStandardConformingStrings(), joined, parts);
    }

    /** As above, for a session that reads backslashes in literals as {@code standardStrings} says. */
    static void requireOneParsePerPart(boolean standardStrings, String joined, List<String> parts) throws SQLException {
        // pgjdbc rewrites JDBC escapes ({fn ...}) before it splits; a metric must not depend on that.
        String afterEscapes = Parser.replaceProcessing(joined, true, standardStrings);
        List<NativeQuery> messages = Parser.parseJdbcSql(afterEscapes, standardStrings,
                false, true, false, false);
        boolean same = afterEscapes.equals(joined) && messages.size() == parts.size();
        for (int i = 0; same && i < parts.size(); i++) {
            same = messages.get(i).nativeSql.strip().equals(parts.get(i).strip());
        }
        if (!same) {
            throw new SplitException(parts.size(), messages.size());
        }
    }

    /** pgjdbc would not send one Parse message per metric: nothing is sent. */
    static final class SplitException extends SQLException {
        private static final String SYNTAX_ERROR = "42601";

        SplitException(int expected, int actual) {
            super("refused to send: a metric's SQL is not exactly one statement as the driver reads it ("
                    + actual + " messages for " + expected + " statements, or JDBC escape syntax)", SYNTAX_ERROR);
        }
    }
}
