package io.pgharvest.model.sql;

import io.pgharvest.model.sql.QuotedConstants.Quoting;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What a string constant or a quoted name lexed by {@link SqlLexer} stands for, as a server with a
 * UTF-8 database reads it. Used to look inside constants (SQL handed to query_to_xml as text) and
 * to compare names; a spelling the server refuses is refused here too.
 */
final class SqlConstants {

    private SqlConstants() {
    }

    /** The value of a STRING token's text. */
    static String stringValue(String text, boolean standardStrings) {
        if (text.startsWith("$")) {
            int tagLength = text.indexOf('$', 1) + 1;
            return text.substring(tagLength, text.length() - tagLength);
        }
        char prefix = Character.toLowerCase(text.charAt(0));
        Quoting quoting = standardStrings ? Quoting.STANDARD : Quoting.BACKSLASH;
        int quote = 1;
        switch (prefix) {
            case '\'' -> quote = 0;
            case 'e' -> quoting = Quoting.BACKSLASH;
            case 'b', 'x' -> quoting = Quoting.BITS;
            case 'u' -> {
                if (!standardStrings) {
                    throw new IllegalArgumentException("a Unicode-escaped constant (U&'...') needs"
                            + " standard_conforming_strings on");
                }
                quoting = Quoting.STANDARD;
                quote = 2;
            }
            default -> {
                // N'...': a plain constant
            }
        }
        var value = new StringBuilder();
        int end = quote;
        for (int open = quote; open >= 0; open = QuotedConstants.continuation(text, end)) {
            end = QuotedConstants.quoteEnd(text, open + 1, quoting);
            String inside = text.substring(open + 1, end - 1);
            value.append(switch (quoting) {
                case BITS -> inside;
                case STANDARD -> inside.replace("''", "'");
                case BACKSLASH -> backslashEscapes(inside);
            });
        }
        return prefix == 'u' ? unicodeEscapes(value.toString(), escapeCharacter(text.substring(end))) : value.toString();
    }

    /** The name a QUOTED_IDENTIFIER token's text stands for. */
    static String identifierValue(String text) {
        boolean unicode = text.charAt(0) != '"';
        int open = unicode ? 2 : 0;
        int close = open + 1;
        while (!(text.charAt(close) == '"' && (close + 1 >= text.length() || text.charAt(close + 1) != '"'))) {
            close += text.charAt(close) == '"' ? 2 : 1;
        }
        String name = text.substring(open + 1, close).replace("\"\"", "\"");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a quoted name must not be empty");
        }
        return unicode ? unicodeEscapes(name, escapeCharacter(text.substring(close + 1))) : name;
    }

    /** The escape character of a {@code UESCAPE 'c'} clause, or a backslash when there is none. */
    private static char escapeCharacter(String clause) {
        List<SqlLexer.Token> code = SqlLexer.lex(clause).code();
        if (code.isEmpty()) {
            return '\\';
        }
        String escape = code.getLast().value();
        if (escape.length() != 1 || "+'\"".indexOf(escape.charAt(0)) >= 0 || SqlChars.isSpace(escape.charAt(0))
                || Character.digit(escape.charAt(0), 16) >= 0) {
            throw new IllegalArgumentException("invalid Unicode escape character: " + clause.strip());
        }
        return escape.charAt(0);
    }

    /** U&'...' escapes: {@code \XXXX}, {@code \+XXXXXX} and a doubled escape character. */
    private static String unicodeEscapes(String text, char escape) {
        var out = new StringBuilder(text.length());
        int highSurrogate = -1;
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c != escape) {
                requireNoPendingSurrogate(highSurrogate);
                out.append(c);
                i++;
                continue;
            }
            if (i + 1 < text.length() && text.charAt(i + 1) == escape) {
                requireNoPendingSurrogate(highSurrogate);
                out.append(escape);
                i += 2;
                continue;
            }
            boolean six = i + 1 < text.length() && text.charAt(i + 1) == '+';
            int digitsAt = six ? i + 2 : i + 1;
            int codePoint = hex(text, digitsAt, six ? 6 : 4);
            highSurrogate = appendCodePoint(out, codePoint, highSurrogate);
            i = digitsAt + (six ? 6 : 4);
        }
        requireNoPendingSurrogate(highSurrogate);
        return out.toString();
    }

    /** E'...' escapes, with bytes decoded as UTF-8 at the end as the server checks them. */
    private static String backslashEscapes(String inside) {
        var bytes = new ByteArrayOutputStream(inside.length());
        var pending = new StringBuilder();
        int highSurrogate = -1;
        int i = 0;
        while (i < inside.length()) {
            char c = inside.charAt(i);
            if (c == '\'' ) {
                pending.append('\'');
                i += 2; // a doubled quote: the lexer let no single one through
                continue;
            }
            if (c != '\\') {
                requireNoPendingSurrogate(highSurrogate);
                pending.append(c);
                i++;
                continue;
            }
            char e = inside.charAt(i + 1);
            if (e == 'u' || e == 'U') {
                int length = e == 'u' ? 4 : 8;
                highSurrogate = appendCodePoint(pending, hex(inside, i + 2, length), highSurrogate);
                i += 2 + length;
                continue;
            }
            requireNoPendingSurrogate(highSurrogate);
            int octalEnd = i + 1;
            while (octalEnd < inside.length() && octalEnd < i + 4 && inside.charAt(octalEnd) >= '0'
                    && inside.charAt(octalEnd) <= '7') {
                octalEnd++;
            }
            if (octalEnd > i + 1) {
                flush(pending, bytes);
                bytes.write(Integer.parseInt(inside, i + 1, octalEnd, 8) & 0xFF);
                i = octalEnd;
                continue;
            }
            int hexEnd = i + 2;
            while (e == 'x' && hexEnd < inside.length() && hexEnd < i + 4 && Character.digit(inside.charAt(hexEnd), 16) >= 0) {
                hexEnd++;
            }
            if (hexEnd > i + 2) {
                flush(pending, bytes);
                bytes.write(Integer.parseInt(inside, i + 2, hexEnd, 16));
                i = hexEnd;
                continue;
            }
            pending.append(switch (e) {
                case 'b' -> '\b';
                case 'f' -> '\f';
                case 'n' -> '\n';
                case 'r' -> '\r';
                case 't' -> '\t';
                case 'v' -> '\u000B';
                default -> e;
            });
            i += 2;
        }
        requireNoPendingSurrogate(highSurrogate);
        flush(pending, bytes);
        return utf8(bytes.toByteArray());
    }

    private static void flush(StringBuilder pending, ByteArrayOutputStream bytes) {
        bytes.writeBytes(pending.toString().getBytes(StandardCharsets.UTF_8));
        pending.setLength(0);
    }

    private static String utf8(byte[] bytes) {
        for (byte b : bytes) {
            if (b == 0) {
                throw new IllegalArgumentException("a constant must not hold a zero byte");
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("a constant's escapes make an invalid UTF-8 byte sequence", e);
        }
    }

    private static int hex(String text, int from, int length) {
        if (from + length > text.length()) {
            throw new IllegalArgumentException("invalid Unicode escape: " + text.substring(Math.max(0, from - 1)));
        }
        int value = 0;
        for (int i = from; i < from + length; i++) {
            int digit = Character.digit(text.charAt(i), 16);
            if (digit < 0) {
                throw new IllegalArgumentException("invalid Unicode escape: " + text.substring(from - 1, from + length));
            }
            value = value * 16 + digit;
        }
        return value;
    }

    /**
     * Appends a code point given by an escape; a high surrogate waits for its low one (the
     * server takes a pair of escapes for one character). Returns the high surrogate now pending, or -1.
     */
    private static int appendCodePoint(StringBuilder out, int codePoint, int highSurrogate) {
        if (highSurrogate >= 0) {
            if (!Character.isLowSurrogate((char) codePoint) || codePoint > 0xFFFF) {
                throw new IllegalArgumentException("invalid Unicode surrogate pair");
            }
            out.append((char) highSurrogate).append((char) codePoint);
            return -1;
        }
        if (codePoint <= 0xFFFF && Character.isHighSurrogate((char) codePoint)) {
            return codePoint;
        }
        if (codePoint == 0 || codePoint > Character.MAX_CODE_POINT
                || codePoint <= 0xFFFF && Character.isLowSurrogate((char) codePoint)) {
            throw new IllegalArgumentException("invalid Unicode escape value: " + Integer.toHexString(codePoint));
        }
        out.appendCodePoint(codePoint);
        return -1;
    }

    private static void requireNoPendingSurrogate(int highSurrogate) {
        if (highSurrogate >= 0) {
            throw new IllegalArgumentException("invalid Unicode surrogate pair");
        }
    }
}
