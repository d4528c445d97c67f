package io.pgharvest.fanout;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A small PostgreSQL lexer: enough to tell identifiers, literals, comments and punctuation apart,
 * so that a rewrite never mistakes text inside a string or a comment for a name. It does not
 * parse; callers classify tokens by their neighbours.
 */
final class SqlTokens {

    enum Kind { WORD, QUOTED_NAME, STRING, NUMBER, PUNCT, COMMENT }

    /**
     * @param text the token as written
     * @param start offset in the query
     */
    record Token(Kind kind, String text, int start) {

        /** A plain word in lower case (keywords, unquoted names); empty for anything else. */
        String word() {
            return kind == Kind.WORD ? text.toLowerCase(Locale.ROOT) : "";
        }

        boolean is(String punct) {
            return kind == Kind.PUNCT && text.equals(punct);
        }

        int end() {
            return start + text.length();
        }
    }

    private static final char NON_ASCII = 0x80;

    private SqlTokens() {
    }

    /** The tokens of {@code sql}, comments included; empty when a literal or comment is not closed. */
    static Optional<List<Token>> of(String sql) {
        var tokens = new ArrayList<Token>();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            int end;
            Kind kind;
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                end = i + 2; // a line comment ends at a line feed or a carriage return, as in PostgreSQL
                while (end < n && sql.charAt(end) != '\n' && sql.charAt(end) != '\r') {
                    end++;
                }
                kind = Kind.COMMENT;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                end = blockCommentEnd(sql, i);
                kind = Kind.COMMENT;
            } else if (c == '\'') {
                end = stringEnd(sql, i + 1, false);
                kind = Kind.STRING;
            } else if ((c == 'e' || c == 'E') && i + 1 < n && sql.charAt(i + 1) == '\'') {
                end = stringEnd(sql, i + 2, true);
                kind = Kind.STRING;
            } else if (c == '"') {
                end = quotedNameEnd(sql, i + 1);
                kind = Kind.QUOTED_NAME;
            } else if (c == '$' && dollarTag(sql, i) != null) {
                String tag = dollarTag(sql, i);
                int close = sql.indexOf(tag, i + tag.length());
                end = close < 0 ? -1 : close + tag.length();
                kind = Kind.STRING;
            } else if (Character.isLetter(c) || c == '_' || c >= NON_ASCII) {
                end = i + 1;
                while (end < n && (isNameChar(sql.charAt(end)) || sql.charAt(end) == '$')) {
                    end++;
                }
                kind = Kind.WORD;
            } else if (Character.isDigit(c)) {
                end = i + 1;
                while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '.')) {
                    end++;
                }
                kind = Kind.NUMBER;
            } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':') {
                end = i + 2;
                kind = Kind.PUNCT;
            } else {
                end = i + 1;
                kind = Kind.PUNCT;
            }
            if (end < 0) {
                return Optional.empty();
            }
            tokens.add(new Token(kind, sql.substring(i, end), i));
            i = end;
        }
        return Optional.of(tokens);
    }

    private static int blockCommentEnd(String sql, int from) {
        int depth = 0;
        int i = from;
        while (i + 1 < sql.length()) {
            if (sql.startsWith("/*", i)) {
                depth++;
                i += 2;
            } else if (sql.startsWith("*/", i)) {
                depth--;
                i += 2;
                if (depth == 0) {
                    return i;
                }
            } else {
                i++;
            }
        }
        return -1;
    }

    private static int stringEnd(String sql, int from, boolean backslashEscapes) {
        int i = from;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == '\'') {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == '\'') {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return -1;
    }

    private static int quotedNameEnd(String sql, int from) {
        int i = from;
        while (i < sql.length()) {
            if (sql.charAt(i) == '"') {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == '"') {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return -1;
    }

    /** PostgreSQL's lexer reads every non-ASCII character as part of a name. */
    private static boolean isNameChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c >= NON_ASCII;
    }

    /** {@code $$} or {@code $tag$} starting at {@code i}, or null (also when it continues a name: a$b, é$$). */
    private static String dollarTag(String sql, int i) {
        if (i > 0 && isNameChar(sql.charAt(i - 1))) {
            return null;
        }
        int j = i + 1;
        while (j < sql.length() && isNameChar(sql.charAt(j))) {
            j++;
        }
        if (j < sql.length() && sql.charAt(j) == '$' && (j == i + 1 || !Character.isDigit(sql.charAt(i + 1)))) {
            return sql.substring(i, j + 1);
        }
        return null;
    }
}
