package io.pgharvest.model.sql;

/**
 * Takes the literals out of a SQL text before it leaves pgharvest: every constant (string
 * constants in every spelling, bit strings, numbers) becomes a parameter symbol {@code $n},
 * numbered after the highest parameter the text already has, as pg_stat_statements normalizes.
 * Comments are dropped (they carry whatever a client put there: sqlcommenter tags, user names).
 * Names, keywords, operators and existing parameters stay, so a redacted text still says which
 * statement ran.
 *
 * <p>Text that does not lex, most often a statement cut off by {@code left(query, n)} inside a
 * string or a comment, loses everything from the token that does not end: an unterminated
 * constant must not leak its tail. A text PostgreSQL normalized already ({@code $1} for every
 * constant) comes back unchanged except for its comments.
 *
 * <p>Assumes {@code standard_conforming_strings = on} (PostgreSQL's default since 9.1): a
 * backslash escapes a quote only in {@code E''} strings.
 */
public final class LiteralRedactor {

    /** What stands for text cut off after a token that does not end. */
    static final String CUT = "…";

    private static final char NON_ASCII = 0x80;

    private LiteralRedactor() {
    }

    /** {@code sql} without its literals and comments; null stays null. */
    public static String redact(String sql) {
        if (sql == null || sql.isEmpty()) {
            return sql;
        }
        int next = highestParameter(sql) + 1;
        var out = new StringBuilder(sql.length());
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            int end;
            if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                end = lineEnd(sql, i);
                out.append(' ');
                i = end;
                continue;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                end = blockCommentEnd(sql, i);
                if (end < 0) {
                    return cut(out);
                }
                out.append(' ');
                i = end;
                continue;
            }
            int literalEnd = literalEnd(sql, i);
            if (literalEnd == UNTERMINATED) {
                return cut(out);
            }
            if (literalEnd > i) {
                if (endsInWord(out)) {
                    out.append(' '); // "select'a'" is "select $1", not the parameter of a name
                }
                out.append('$').append(next++);
                i = literalEnd;
                continue;
            }
            if (c == '"') {
                end = quotedNameEnd(sql, i + 1);
                if (end < 0) {
                    return cut(out);
                }
            } else if (c == '$' && i + 1 < n && isDigit(sql.charAt(i + 1))) {
                end = digitsEnd(sql, i + 1); // a parameter: stays
            } else if (isNameStart(c)) {
                end = i + 1;
                while (end < n && (isNameChar(sql.charAt(end)) || sql.charAt(end) == '$')) {
                    end++;
                }
            } else {
                end = i + 1;
            }
            out.append(sql, i, end);
            i = end;
        }
        return out.toString();
    }

    private static final int UNTERMINATED = -1;

    /**
     * Where the constant starting at {@code i} ends, {@code i} when none starts there, or
     * {@link #UNTERMINATED} when one starts and does not end.
     */
    private static int literalEnd(String sql, int i) {
        int n = sql.length();
        char c = sql.charAt(i);
        if (c == '\'') {
            return stringEnd(sql, i + 1, false);
        }
        if (startsPrefixedString(sql, i)) {
            char prefix = Character.toLowerCase(c);
            if (prefix == 'u') {
                return stringEnd(sql, i + 3, false);
            }
            return stringEnd(sql, i + 2, prefix == 'e');
        }
        if (c == '$') {
            String tag = dollarTag(sql, i);
            if (tag == null) {
                return i;
            }
            int close = sql.indexOf(tag, i + tag.length());
            return close < 0 ? UNTERMINATED : close + tag.length();
        }
        boolean startsNumber = isDigit(c) || (c == '.' && i + 1 < n && isDigit(sql.charAt(i + 1)));
        if (startsNumber && (i == 0 || !isNameChar(sql.charAt(i - 1)))) {
            return numberEnd(sql, i);
        }
        return i;
    }

    /** {@code E'}, {@code B'}, {@code X'}, {@code N'} or {@code U&'} at {@code i}, not inside a name. */
    private static boolean startsPrefixedString(String sql, int i) {
        if (i > 0 && isNameChar(sql.charAt(i - 1))) {
            return false;
        }
        char c = Character.toLowerCase(sql.charAt(i));
        int n = sql.length();
        if ((c == 'e' || c == 'b' || c == 'x' || c == 'n') && i + 1 < n) {
            return sql.charAt(i + 1) == '\'';
        }
        return c == 'u' && i + 2 < n && sql.charAt(i + 1) == '&' && sql.charAt(i + 2) == '\'';
    }

    /** Digits, a fraction, an exponent, hexadecimal/octal/binary prefixes and underscores (PostgreSQL 16). */
    private static int numberEnd(String sql, int i) {
        int n = sql.length();
        int end = i;
        while (end < n) {
            char c = sql.charAt(end);
            if (Character.isLetterOrDigit(c) || c == '_' || c == '.') {
                if ((c == 'e' || c == 'E') && end + 1 < n && (sql.charAt(end + 1) == '+' || sql.charAt(end + 1) == '-')) {
                    end++;
                }
                if (c == '.' && end + 1 < n && sql.charAt(end + 1) == '.') {
                    break; // "1..5" in a slice is a number, an operator, a number
                }
                end++;
            } else {
                break;
            }
        }
        return end;
    }

    private static int stringEnd(String sql, int from, boolean backslashEscapes) {
        int i = from;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == '\'') {
                if (i + 1 < n && sql.charAt(i + 1) == '\'') {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return UNTERMINATED;
    }

    private static int quotedNameEnd(String sql, int from) {
        int i = from;
        int n = sql.length();
        while (i < n) {
            if (sql.charAt(i) == '"') {
                if (i + 1 < n && sql.charAt(i + 1) == '"') {
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

    /** A line comment ends at a line feed or a carriage return, as in PostgreSQL. */
    private static int lineEnd(String sql, int from) {
        int end = from + 2;
        while (end < sql.length() && sql.charAt(end) != '\n' && sql.charAt(end) != '\r') {
            end++;
        }
        return end;
    }

    /** Block comments nest in PostgreSQL. */
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

    /** {@code $$} or {@code $tag$} starting at {@code i}, or null (also when it continues a name: a$b, é$$). */
    private static String dollarTag(String sql, int i) {
        if (i > 0 && isNameChar(sql.charAt(i - 1))) {
            return null;
        }
        int j = i + 1;
        while (j < sql.length() && isNameChar(sql.charAt(j))) {
            j++;
        }
        if (j < sql.length() && sql.charAt(j) == '$' && (j == i + 1 || !isDigit(sql.charAt(i + 1)))) {
            return sql.substring(i, j + 1);
        }
        return null;
    }

    /** The highest {@code $n} outside constants and comments, 0 when there is none. */
    private static int highestParameter(String sql) {
        int highest = 0;
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                i = lineEnd(sql, i);
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = blockCommentEnd(sql, i);
                if (end < 0) {
                    return highest;
                }
                i = end;
            } else if (c == '"') {
                int end = quotedNameEnd(sql, i + 1);
                if (end < 0) {
                    return highest;
                }
                i = end;
            } else if (c == '$' && i + 1 < n && isDigit(sql.charAt(i + 1)) && (i == 0 || !isNameChar(sql.charAt(i - 1)))) {
                int end = digitsEnd(sql, i + 1);
                highest = Math.max(highest, parameterNumber(sql.substring(i + 1, end)));
                i = end;
            } else if (isNameStart(c)) {
                int end = i + 1;
                while (end < n && (isNameChar(sql.charAt(end)) || sql.charAt(end) == '$')) {
                    end++;
                }
                i = startsPrefixedString(sql, i) ? skipLiteral(sql, i) : end;
            } else {
                i = skipLiteral(sql, i);
            }
            if (i < 0) {
                return highest;
            }
        }
        return highest;
    }

    private static int skipLiteral(String sql, int i) {
        int end = literalEnd(sql, i);
        return end == UNTERMINATED ? -1 : Math.max(end, i + 1);
    }

    private static int parameterNumber(String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            return 0; // more digits than any statement has parameters: the server refuses it anyway
        }
    }

    private static int digitsEnd(String sql, int from) {
        int end = from;
        while (end < sql.length() && isDigit(sql.charAt(end))) {
            end++;
        }
        return end;
    }

    private static String cut(StringBuilder out) {
        return out.append(CUT).toString();
    }

    private static boolean endsInWord(StringBuilder out) {
        return !out.isEmpty() && isNameChar(out.charAt(out.length() - 1));
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isNameStart(char c) {
        return Character.isLetter(c) || c == '_' || c >= NON_ASCII;
    }

    /** PostgreSQL's lexer reads every non-ASCII character as part of a name. */
    private static boolean isNameChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c >= NON_ASCII;
    }
}
