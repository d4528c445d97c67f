package io.pgharvest.kind.postgres;

import org.postgresql.core.Parser;

/**
 * Makes SQL safe to prepare with pgjdbc, which reads a {@code ?} as a bind placeholder: every
 * question mark pgjdbc would read that way (outside literals, quoted names and comments) is
 * doubled, pgjdbc's escape for a literal {@code ?} (the jsonb operators). The scan uses pgjdbc's
 * own lexing functions, so it agrees with the driver on what a literal or a comment is.
 *
 * <p>Why: a metric's SQL with a question mark used to run as a plain statement, and since a tick's
 * metrics share one statement, such a metric (pgwatch's {@code privilege_changes} has one in a
 * comment) made the whole pipeline unprepared: pgjdbc parsed and the server parsed and planned
 * every metric of the tick again on every tick.
 */
final class QuestionMarks {

    private QuestionMarks() {
    }

    /** {@code sql} with its placeholder-like question marks doubled (the same string when there are none). */
    static String escape(String sql, boolean standardConformingStrings) {
        if (sql.indexOf('?') < 0) {
            return sql;
        }
        char[] chars = sql.toCharArray();
        var out = new StringBuilder(sql.length() + 8);
        int copied = 0;
        for (int i = 0; i < chars.length; i++) {
            switch (chars[i]) {
                case '\'' -> i = Parser.parseSingleQuotes(chars, i, standardConformingStrings);
                case '"' -> i = Parser.parseDoubleQuotes(chars, i);
                case '-' -> i = Parser.parseLineComment(chars, i);
                case '/' -> i = Parser.parseBlockComment(chars, i);
                case '$' -> i = Parser.parseDollarQuotes(chars, i);
                case '?' -> {
                    out.append(chars, copied, i + 1 - copied).append('?');
                    copied = i + 1;
                }
                default -> {
                    // any other character is copied with the next stretch
                }
            }
        }
        return out.append(chars, copied, chars.length - copied).toString();
    }
}
