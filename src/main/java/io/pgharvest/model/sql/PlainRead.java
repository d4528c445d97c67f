package io.pgharvest.model.sql;

import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Whether a statement text, as pg_stat_statements normalized it, is a plain read that pgharvest may
 * ask a generic plan of (query_plans): one SELECT, or WITH ... SELECT, without a data-modifying
 * common table expression and without SELECT INTO. Read with {@link SqlLexer}; a text that does not
 * lex, or holds a word that could make it write, is not a plain read (a false "no" costs a plan; a
 * false "yes" is still held by the read-only transaction the plan is asked in, which is the
 * boundary that counts: EXPLAIN without ANALYZE never runs the statement).
 */
public final class PlainRead {

    /** Words that make a statement write or create something, wherever they stand. */
    private static final Set<String> WRITING_WORDS = Set.of("insert", "update", "delete", "merge", "into",
            "truncate", "copy", "call", "do", "execute", "prepare", "explain");

    private PlainRead() {
    }

    /**
     * The number of parameters ({@code $n}: the highest n) of {@code statement} when it is a plain
     * read, empty when it is not.
     */
    public static OptionalInt parameterCount(String statement) {
        if (statement == null) {
            return OptionalInt.empty();
        }
        SqlLexer.Lexed lexed = SqlLexer.lex(statement);
        if (lexed.problem().isPresent()) {
            return OptionalInt.empty();
        }
        List<SqlLexer.Token> code = lexed.code();
        int end = code.size();
        while (end > 0 && code.get(end - 1).is(";")) {
            end--;
        }
        int first = 0;
        while (first < end && code.get(first).is("(")) {
            first++; // (select ...) union (select ...)
        }
        if (first == end || !Set.of("select", "with").contains(code.get(first).word())) {
            return OptionalInt.empty();
        }
        int parameters = 0;
        for (int i = 0; i < end; i++) {
            SqlLexer.Token token = code.get(i);
            if (token.is(";") || WRITING_WORDS.contains(token.word())) {
                return OptionalInt.empty();
            }
            if (token.kind() == SqlLexer.Kind.PARAMETER) {
                try {
                    parameters = Math.max(parameters, Integer.parseInt(token.text(), 1, token.text().length(), 10));
                } catch (NumberFormatException e) {
                    return OptionalInt.empty(); // more digits than the server allows parameters
                }
            }
        }
        return OptionalInt.of(parameters);
    }
}
