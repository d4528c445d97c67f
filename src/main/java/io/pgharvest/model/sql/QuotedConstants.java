package io.pgharvest.model.sql;

import static io.pgharvest.model.sql.SqlChars.blockCommentEnd;
import static io.pgharvest.model.sql.SqlChars.foldCase;
import static io.pgharvest.model.sql.SqlChars.isHorizontalSpace;
import static io.pgharvest.model.sql.SqlChars.isNamePart;
import static io.pgharvest.model.sql.SqlChars.isNameStart;
import static io.pgharvest.model.sql.SqlChars.isNewline;
import static io.pgharvest.model.sql.SqlChars.isSpace;
import static io.pgharvest.model.sql.SqlChars.isTagPart;
import static io.pgharvest.model.sql.SqlChars.lineCommentEnd;

/**
 * Where a quoted run of one text ends, as the server reads it: string constants in every quoting
 * ({@code '..'}, {@code E'..'}, {@code B'..'}, {@code U&'..'}) with their continuations on the next
 * line and a {@code UESCAPE} clause, quoted names ({@code "..."}, {@code U&"..."}), and dollar
 * quotes. {@link SqlLexer}'s token loop decides from the first characters which run starts and
 * asks here where it ends; {@link SqlConstants} reads a constant's value with the same rules.
 * Every method answers -1 (or null) for a run that is never closed; none throws for bad text.
 */
final class QuotedConstants {

    /** What a string constant's quotes allow inside it. */
    enum Quoting {
        /** {@code ''} is a quote; a backslash is a character. */
        STANDARD,
        /** {@code ''} or {@code \'} is a quote, a backslash escapes the next character. */
        BACKSLASH,
        /** Bit strings: the first quote ends them. */
        BITS
    }

    private final String sql;
    private final int n;
    private final boolean standardStrings;

    /** @param standardStrings the server's {@code standard_conforming_strings}, for a UESCAPE clause's quotes */
    QuotedConstants(String sql, boolean standardStrings) {
        this.sql = sql;
        this.n = sql.length();
        this.standardStrings = standardStrings;
    }

    /**
     * The end of the string constant whose (first) opening quote is at {@code quote}: its
     * continuations included, and for a Unicode-escaped one ({@code unicode}) a following UESCAPE
     * clause; -1 when it is never closed.
     */
    int stringEnd(int quote, Quoting quoting, boolean unicode) {
        int end = quoteEnd(sql, quote + 1, quoting);
        while (end > 0) {
            int next = continuation(sql, end);
            if (next < 0) {
                break;
            }
            end = quoteEnd(sql, next + 1, quoting);
        }
        return end < 0 ? -1 : unicode ? uescapeEnd(end) : end;
    }

    /** The end of the quoted name whose opening quote is at {@code quote} (and its UESCAPE clause), or -1. */
    int quotedIdentifierEnd(int quote, boolean unicode) {
        int i = quote + 1;
        while (i < n) {
            if (sql.charAt(i) == '"' && i + 1 < n && sql.charAt(i + 1) == '"') {
                i += 2;
            } else if (sql.charAt(i) == '"') {
                return unicode ? uescapeEnd(i + 1) : i + 1;
            } else {
                i++;
            }
        }
        return -1;
    }

    /**
     * The opening tag of a dollar quote starting at {@code at} ({@code $$} or {@code $tag$}, a tag
     * of name characters other than {@code $}, non-ASCII letters too), or null when the {@code $}
     * there opens none.
     */
    String dollarTag(int at) {
        int tagEnd = at + 1;
        if (tagEnd < n && isNameStart(sql.charAt(tagEnd))) {
            while (tagEnd < n && isTagPart(sql.charAt(tagEnd))) {
                tagEnd++;
            }
        }
        return tagEnd < n && sql.charAt(tagEnd) == '$' ? sql.substring(at, tagEnd + 1) : null;
    }

    /** The end of the dollar quote opened by {@code tag} at {@code at} (its closing tag included), or -1. */
    int dollarQuoteEnd(int at, String tag) {
        int close = sql.indexOf(tag, at + tag.length());
        return close < 0 ? -1 : close + tag.length();
    }

    /** The end of a quoted run whose opening quote is just before {@code from}, or -1 when it is never closed. */
    static int quoteEnd(String sql, int from, Quoting quoting) {
        int i = from;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\\' && quoting == Quoting.BACKSLASH) {
                i += 2;
            } else if (c == '\'' && quoting != Quoting.BITS && i + 1 < sql.length() && sql.charAt(i + 1) == '\'') {
                i += 2;
            } else if (c == '\'') {
                return i + 1;
            } else {
                i++;
            }
        }
        return -1;
    }

    /**
     * Where a string constant that ended at {@code from} goes on (the index of its next opening
     * quote), or -1. The server joins constants separated by whitespace that holds a newline, with
     * {@code --} comments allowed where a comment ends at that newline, but no block comment.
     */
    static int continuation(String sql, int from) {
        int n = sql.length();
        int i = from;
        while (i < n && (isHorizontalSpace(sql.charAt(i)) || sql.startsWith("--", i))) {
            i = sql.charAt(i) == '-' ? lineCommentEnd(sql, i) : i + 1;
        }
        if (i >= n || !isNewline(sql.charAt(i))) {
            return -1;
        }
        i++;
        while (i < n) {
            if (isSpace(sql.charAt(i))) {
                i++;
            } else if (sql.startsWith("--", i)) {
                i = lineCommentEnd(sql, i);
                if (i >= n) {
                    return -1;
                }
                i++;
            } else {
                break;
            }
        }
        return i < n && sql.charAt(i) == '\'' ? i : -1;
    }

    /**
     * The end of a {@code UESCAPE '!'} clause after a Unicode-escaped constant or name ending at
     * {@code from}, or {@code from} when none follows: the server applies the clause to the
     * constant, so a caller replacing the constant must replace the clause with it.
     */
    private int uescapeEnd(int from) {
        int i = skipSpaceAndComments(from);
        if (i + 7 > n || !foldCase(sql.substring(i, i + 7)).equals("uescape") || i + 7 < n && isNamePart(sql.charAt(i + 7))) {
            return from;
        }
        i = skipSpaceAndComments(i + 7);
        if (i >= n || sql.charAt(i) != '\'') {
            return from;
        }
        int end = quoteEnd(sql, i + 1, standardStrings ? Quoting.STANDARD : Quoting.BACKSLASH);
        return end < 0 ? from : end;
    }

    private int skipSpaceAndComments(int from) {
        int i = from;
        while (i < n) {
            if (isSpace(sql.charAt(i))) {
                i++;
            } else if (sql.startsWith("--", i)) {
                i = lineCommentEnd(sql, i);
            } else if (sql.startsWith("/*", i)) {
                int end = blockCommentEnd(sql, i);
                if (end < 0) {
                    return i;
                }
                i = end;
            } else {
                break;
            }
        }
        return i;
    }
}
