package io.pgharvest.model.sql;

/**
 * The character classes of PostgreSQL's lexer and where its comments end, shared by the token loop
 * ({@link SqlLexer}), the quoted runs ({@link QuotedConstants}) and the constants' values
 * ({@link SqlConstants}), so the three read a character alike.
 */
final class SqlChars {

    private static final char NON_ASCII = 0x80;
    private static final char VERTICAL_TAB = 0x0B;

    private SqlChars() {
    }

    static String foldCase(String word) {
        var folded = new StringBuilder(word.length());
        for (int i = 0; i < word.length(); i++) {
            char c = word.charAt(i);
            folded.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
        }
        return folded.toString();
    }

    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == VERTICAL_TAB;
    }

    static boolean isNewline(char c) {
        return c == '\n' || c == '\r';
    }

    static boolean isHorizontalSpace(char c) {
        return c == ' ' || c == '\t' || c == '\f' || c == VERTICAL_TAB;
    }

    private static boolean isAsciiLetter(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** PostgreSQL's lexer works on bytes; every byte of a multi-byte character may start a name. */
    static boolean isNameStart(char c) {
        return isAsciiLetter(c) || c == '_' || c >= NON_ASCII;
    }

    static boolean isNamePart(char c) {
        return isNameStart(c) || isDigit(c) || c == '$';
    }

    /** A dollar quote's tag is a name without {@code $}. */
    static boolean isTagPart(char c) {
        return isNameStart(c) || isDigit(c);
    }

    /** The end of a {@code --} comment: the line feed or carriage return that ends it, or the text's end. */
    static int lineCommentEnd(String sql, int from) {
        int i = from + 2;
        while (i < sql.length() && !isNewline(sql.charAt(i))) {
            i++;
        }
        return i;
    }

    /** The end of the (nested) block comment starting at {@code from}, or -1 when it is never closed. */
    static int blockCommentEnd(String sql, int from) {
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
}
