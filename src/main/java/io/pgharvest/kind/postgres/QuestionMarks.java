package io.pgharvest.kind.postgres;

import io.pgharvest.model.sql.SqlLexer;

/**
 * Makes SQL safe to prepare with pgjdbc, which reads a {@code ?} as a bind placeholder: every
 * question mark in an operator (the jsonb operators {@code ?}, {@code ?|}, {@code ?&}) is doubled,
 * pgjdbc's escape for a literal {@code ?}; those in constants, quoted names and comments are left
 * alone, where pgjdbc leaves them too. Where they are is {@link SqlLexer}'s reading, the server's.
 *
 * <p>Why: a metric's SQL with a question mark used to run as a plain statement, and since a tick's
 * metrics share one statement, such a metric (pgwatch's {@code privilege_changes} has one in a
 * comment) made the whole pipeline unprepared: pgjdbc parsed and the server parsed and planned
 * every metric of the tick again on every tick.
 *
 * <p>Hazard: pgjdbc's own scan is simpler than the server's in one known place: it does not know
 * that a constant continued on the next line keeps the first part's spelling ({@code E'a'} newline
 * {@code '\''}), so after such a text it may take code for a constant and a doubled {@code ?} there
 * would reach the server as {@code ??}. No catalog metric is written so.
 */
final class QuestionMarks {

    private QuestionMarks() {
    }

    /** {@code sql} with its placeholder-like question marks doubled (the same string when there are none). */
    static String escape(String sql, boolean standardConformingStrings) {
        if (sql.indexOf('?') < 0) {
            return sql;
        }
        var out = new StringBuilder(sql.length() + 8);
        for (SqlLexer.Token token : SqlLexer.lex(sql, standardConformingStrings).tokens()) {
            out.append(token.kind() == SqlLexer.Kind.OPERATOR ? token.text().replace("?", "??") : token.text());
        }
        return out.toString();
    }
}
