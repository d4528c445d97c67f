package io.pgharvest.model.sql;

import java.util.List;

/**
 * Takes the literals out of a SQL text before it leaves pgharvest: every constant (string
 * constants in every spelling, bit strings, numbers) becomes a parameter symbol {@code $n},
 * numbered after the highest parameter the text already has, as pg_stat_statements normalizes.
 * Comments are dropped (they carry whatever a client put there: sqlcommenter tags, user names).
 * Names, keywords, operators and existing parameters stay, so a redacted text still says which
 * statement ran. The tokens are {@link SqlLexer}'s, the project's one reading of SQL.
 *
 * <p>Text that does not lex, most often a statement cut off by {@code left(query, n)} inside a
 * string, a quoted name or a comment, loses everything from the token that does not end: an
 * unterminated constant must not leak its tail. A text PostgreSQL normalized already ({@code $1}
 * for every constant) comes back unchanged except for its comments.
 *
 * <p>The text's {@code standard_conforming_strings} is not known: an application may switch it off in
 * its own session, and then a backslash in a plain {@code '..'} escapes the quote after it, so the
 * server's constant runs on where a reading with the setting on sees it end (and the next constant
 * would be read as names). So the text is lexed both ways, and from the first token the two readings
 * do not agree on (its kind or where it ends) everything is cut, as from an unterminated constant.
 * Only a backslash makes the two differ, so a text without one is lexed once.
 */
public final class LiteralRedactor {

    /** What stands for text cut off at a token that does not end. */
    static final String CUT = "…";

    private LiteralRedactor() {
    }

    /** {@code sql} without its literals and comments; null stays null. */
    public static String redact(String sql) {
        if (sql == null || sql.isEmpty()) {
            return sql;
        }
        SqlLexer.Lexed lexed = SqlLexer.lex(sql);
        List<SqlLexer.Token> tokens = lexed.tokens();
        // An unclosed constant, quoted name or comment is the last token and runs to the end.
        int kept = lexed.problem().isPresent() ? tokens.size() - 1 : tokens.size();
        if (sql.indexOf('\\') >= 0) {
            kept = Math.min(kept, agreedTokens(tokens, SqlLexer.lex(sql, false).tokens()));
        }
        int next = highestParameter(tokens) + 1;
        var out = new StringBuilder(sql.length());
        for (int i = 0; i < kept; i++) {
            SqlLexer.Token token = tokens.get(i);
            switch (token.kind()) {
                case STRING, NUMBER -> {
                    if (!out.isEmpty() && i > 0 && tokens.get(i - 1).kind() == SqlLexer.Kind.WORD) {
                        out.append(' '); // "select'a'" is "select $1", not the parameter of a name
                    }
                    out.append('$').append(next++);
                }
                case COMMENT -> out.append(' ');
                default -> out.append(token.text());
            }
        }
        if (kept < tokens.size()) {
            out.append(CUT);
        }
        return out.toString();
    }

    /**
     * How many leading tokens the reading with standard_conforming_strings on ({@code on}) shares with
     * the reading with it off: same kind, same text. Both start at offset 0 and cover the text without
     * gaps, so equal tokens so far start at the same offset.
     */
    private static int agreedTokens(List<SqlLexer.Token> on, List<SqlLexer.Token> off) {
        int shared = Math.min(on.size(), off.size());
        for (int i = 0; i < shared; i++) {
            if (on.get(i).kind() != off.get(i).kind() || !on.get(i).text().equals(off.get(i).text())) {
                return i;
            }
        }
        return on.size() == off.size() ? on.size() : shared;
    }

    /** The highest {@code $n} of the text, 0 when there is none. */
    private static int highestParameter(List<SqlLexer.Token> tokens) {
        int highest = 0;
        for (SqlLexer.Token token : tokens) {
            if (token.kind() == SqlLexer.Kind.PARAMETER) {
                try {
                    highest = Math.max(highest, Integer.parseInt(token.text(), 1, token.text().length(), 10));
                } catch (NumberFormatException e) {
                    // more digits than any statement has parameters: the server refuses it anyway
                }
            }
        }
        return highest;
    }
}
