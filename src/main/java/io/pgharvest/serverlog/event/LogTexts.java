package io.pgharvest.serverlog.event;

import io.pgharvest.model.sql.LiteralRedactor;
import io.pgharvest.model.sql.SqlLexer;
import java.util.List;

/**
 * What of a log entry's text may leave the collector. Unless the source keeps literals (its
 * {@code keepQueryLiterals}, the setting query insights honour), statements lose their constants
 * ({@link LiteralRedactor}), messages lose every quoted or numeric part (the server quotes the
 * values it complains about: {@code invalid input syntax for type integer: "4111-1111"}), and
 * DETAIL lines, which carry row contents and the parameters of prepared statements, are dropped.
 * Both readings are {@link SqlLexer}'s, the project's one reading of SQL.
 */
public final class LogTexts {

    /** What stands for a redacted part of a message, and for a text cut at a part that does not end. */
    static final String HIDDEN = "…";

    private final boolean keepLiterals;

    public LogTexts(boolean keepLiterals) {
        this.keepLiterals = keepLiterals;
    }

    public boolean keepsLiterals() {
        return keepLiterals;
    }

    /** A statement text without its literals and comments. */
    public String statement(String sql) {
        return keepLiterals || sql == null ? sql : LiteralRedactor.redact(sql);
    }

    /** A message with its quoted names and values, constants and numbers replaced by {@value #HIDDEN}. */
    public String message(String text) {
        return keepLiterals || text == null ? text : redactMessage(text);
    }

    /** A DETAIL line: kept only for a source that keeps literals. */
    public String detail(String text) {
        return keepLiterals ? text : null;
    }

    static String redactMessage(String text) {
        SqlLexer.Lexed lexed = SqlLexer.lex(text);
        List<SqlLexer.Token> tokens = lexed.tokens();
        int kept = lexed.problem().isPresent() ? tokens.size() - 1 : tokens.size();
        if (text.indexOf('\\') >= 0) {
            // read with standard_conforming_strings off too; cut where the two readings part
            List<SqlLexer.Token> other = SqlLexer.lex(text, false).tokens();
            int same = 0;
            while (same < Math.min(kept, other.size()) && other.get(same).kind() == tokens.get(same).kind()
                    && other.get(same).text().equals(tokens.get(same).text())) {
                same++;
            }
            kept = same;
        }
        var out = new StringBuilder(text.length());
        for (int i = 0; i < kept; i++) {
            SqlLexer.Token token = tokens.get(i);
            switch (token.kind()) {
                case STRING -> out.append('\'').append(HIDDEN).append('\'');
                case QUOTED_IDENTIFIER -> out.append('"').append(HIDDEN).append('"');
                case NUMBER, PARAMETER -> out.append(HIDDEN);
                case COMMENT -> out.append(' ');
                default -> out.append(token.text());
            }
        }
        if (kept < tokens.size()) {
            out.append(HIDDEN);
        }
        return out.toString();
    }
}
