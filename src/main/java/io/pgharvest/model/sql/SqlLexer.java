package io.pgharvest.model.sql;

import static io.pgharvest.model.sql.SqlChars.blockCommentEnd;
import static io.pgharvest.model.sql.SqlChars.foldCase;
import static io.pgharvest.model.sql.SqlChars.isDigit;
import static io.pgharvest.model.sql.SqlChars.isNamePart;
import static io.pgharvest.model.sql.SqlChars.isNameStart;
import static io.pgharvest.model.sql.SqlChars.isSpace;
import static io.pgharvest.model.sql.SqlChars.lineCommentEnd;

import io.pgharvest.model.sql.QuotedConstants.Quoting;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * pgharvest's one reading of SQL text: PostgreSQL's lexical structure, so that a word, a literal,
 * a comment and a statement end are where the server sees them. Everything that reads metric SQL lexes it here: the read-only check
 * ({@link MetricSql}), the instance fan-out rewrite, the escaping of question marks for pgjdbc, and
 * the redaction of literals from statement texts.
 *
 * <p>The tokens cover the text without gaps, whitespace and comments included, each with its
 * offsets, so a caller can cut and replace text by token. What this lexer follows of the server:
 * <ul>
 * <li>string constants in every spelling, each one token: {@code '..'}, {@code E'..'} (backslash
 * escapes), {@code U&'..'} with an optional {@code UESCAPE '!'} clause (one token with it),
 * {@code N'..'}, {@code B'..'}, {@code X'..'}, {@code $tag$..$tag$} (a tag of any letters, also
 * non-ASCII ones), and constants continued on the next line ({@code 'a'} newline {@code 'b'} is
 * one constant {@code ab});</li>
 * <li>{@code standard_conforming_strings}: when off, a plain {@code '..'} takes backslash escapes
 * too;</li>
 * <li>names: every non-ASCII character is part of a name, as are {@code $} and digits after the
 * first character; {@code "..."} and {@code U&"..."} quoted names;</li>
 * <li>comments: {@code --} up to a line feed or a carriage return, block comments that nest;</li>
 * <li>operators as the server cuts them (a {@code --} or {@code /*} inside ends one, a trailing
 * {@code +} or {@code -} is split off unless the operator holds one of {@code ~!@#^&|`?%}).</li>
 * </ul>
 * Where server versions differ it reads as the newest do: {@code E'\v'} is a vertical tab (17 and
 * later; the letter v before), {@code 1_000}, {@code 0x1F} are one number (16 and later; before,
 * a number and a name). What it does not do: parse, truncate long names (the server cuts them at
 * 63 bytes), or refuse what only the grammar refuses. It is the friendly first reading; the
 * server's is the one that counts (DESIGN.md: metric SQL).
 */
public final class SqlLexer {

    /** What a token is. */
    public enum Kind {
        /** A keyword or an unquoted name (which of the two is the grammar's business). */
        WORD,
        /** A {@code "quoted"} or {@code U&"quoted"} name. */
        QUOTED_IDENTIFIER,
        /** A string constant in any spelling (see the class comment), continuation and UESCAPE included. */
        STRING,
        /** An integer or a numeric constant ({@code 42}, {@code 1_000}, {@code 0x1F}, {@code 1.5e-3}, {@code .5}). */
        NUMBER,
        /** An operator: {@code =}, {@code <>}, {@code ->>}, {@code ?|}, {@code *} ... */
        OPERATOR,
        /**
         * {@code , ( ) [ ] ; . :}, the cast {@code ::}, {@code :=} and {@code ..}; also a character the
         * server reads on its own only to refuse it (a lone {@code $} or {@code \}).
         */
        PUNCTUATION,
        /** A positional parameter {@code $1}. */
        PARAMETER,
        /** A {@code --} or a block comment. */
        COMMENT,
        /** Spaces, tabs, line feeds, carriage returns, form feeds, vertical tabs. */
        WHITESPACE
    }

    private static final String OPERATOR_CHARS = "~!@#^&|`?+-*/%<>=";
    /** An operator that holds one of these keeps a trailing + or - (so {@code @-} is one operator). */
    private static final String KEEPS_TRAILING_SIGN = "~!@#^&|`?%";
    private static final String PUNCTUATION_CHARS = ",()[];.:";

    private SqlLexer() {
    }

    /** The tokens of {@code sql} as a server with {@code standard_conforming_strings} on reads them. */
    public static Lexed lex(String sql) {
        return lex(sql, true);
    }

    /** The tokens of {@code sql} as a server with this {@code standard_conforming_strings} reads them. */
    public static Lexed lex(String sql, boolean standardConformingStrings) {
        return new Scan(sql, standardConformingStrings).run();
    }

    /**
     * The tokens of a text, in order and without gaps. When a constant, a quoted name or a comment
     * is never closed, its token runs to the end of the text and {@code problem} says which.
     */
    public record Lexed(List<Token> tokens, Optional<String> problem) {

        public Lexed {
            tokens = List.copyOf(tokens);
        }

        /** The tokens that are not whitespace or comments. */
        public List<Token> code() {
            return tokens.stream().filter(Token::isCode).toList();
        }

        /** The tokens, or empty when something is not closed. */
        public Optional<List<Token>> complete() {
            return problem.isPresent() ? Optional.empty() : Optional.of(tokens);
        }
    }

    /**
     * One token: its kind, its text as written and where it is ({@code sql.substring(start, end)}
     * is {@code text}).
     */
    public static final class Token {

        private final Kind kind;
        private final String text;
        private final int start;
        private final boolean standardStrings;

        Token(Kind kind, String text, int start, boolean standardStrings) {
            this.kind = kind;
            this.text = text;
            this.start = start;
            this.standardStrings = standardStrings;
        }

        public Kind kind() {
            return kind;
        }

        public String text() {
            return text;
        }

        public int start() {
            return start;
        }

        public int end() {
            return start + text.length();
        }

        /** Not whitespace and not a comment. */
        public boolean isCode() {
            return kind != Kind.WHITESPACE && kind != Kind.COMMENT;
        }

        /**
         * A word as the server folds it (ASCII letters to lower case, other characters as written,
         * like PostgreSQL in a UTF-8 database); empty for any other kind.
         */
        public String word() {
            return kind == Kind.WORD ? foldCase(text) : "";
        }

        /** Whether this is the operator or punctuation {@code symbol}. */
        public boolean is(String symbol) {
            return (kind == Kind.PUNCTUATION || kind == Kind.OPERATOR) && text.equals(symbol);
        }

        /**
         * What the server reads: a string constant's value (escapes, doubled quotes, continuations
         * and UESCAPE applied; a bit string's digits as written), a quoted name's name, a word in
         * its folded case.
         *
         * @throws IllegalArgumentException when the server would refuse the spelling (a bad
         *     escape, an invalid byte sequence, Unicode escapes with standard_conforming_strings off)
         * @throws IllegalStateException for other kinds of token
         */
        public String value() {
            return switch (kind) {
                case STRING -> SqlConstants.stringValue(text, standardStrings);
                case QUOTED_IDENTIFIER -> SqlConstants.identifierValue(text);
                case WORD -> word();
                default -> throw new IllegalStateException("a " + kind + " token has no value: " + text);
            };
        }

        @Override
        public String toString() {
            return kind + " " + text;
        }
    }

    /** One pass over a text; not thread-safe, used once. */
    private static final class Scan {

        private final String sql;
        private final int n;
        private final boolean standardStrings;
        private final QuotedConstants constants;
        private final List<Token> tokens = new ArrayList<>();
        private String problem;

        Scan(String sql, boolean standardStrings) {
            this.sql = sql == null ? "" : sql;
            this.n = this.sql.length();
            this.standardStrings = standardStrings;
            this.constants = new QuotedConstants(this.sql, standardStrings);
        }

        Lexed run() {
            int at = 0;
            while (at < n) {
                at = next(at);
            }
            return new Lexed(tokens, Optional.ofNullable(problem));
        }

        private char peek(int index) {
            return index < n ? sql.charAt(index) : '\0';
        }

        private int add(Kind kind, int start, int end) {
            tokens.add(new Token(kind, sql.substring(start, end), start, standardStrings));
            return end;
        }

        private int unclosed(Kind kind, int start, String why) {
            problem = why;
            return add(kind, start, n);
        }

        /** Reads the token at {@code at} and returns where the next one starts. */
        private int next(int at) {
            char c = sql.charAt(at);
            char c1 = peek(at + 1);
            if (isSpace(c)) {
                int end = at + 1;
                while (end < n && isSpace(sql.charAt(end))) {
                    end++;
                }
                return add(Kind.WHITESPACE, at, end);
            }
            if (c == '-' && c1 == '-') {
                return add(Kind.COMMENT, at, lineCommentEnd(sql, at));
            }
            if (c == '/' && c1 == '*') {
                int end = blockCommentEnd(sql, at);
                return end < 0 ? unclosed(Kind.COMMENT, at, "has a comment that is never closed")
                        : add(Kind.COMMENT, at, end);
            }
            if (c == '\'') {
                return string(at, at, standardStrings ? Quoting.STANDARD : Quoting.BACKSLASH, false);
            }
            if (c == '"') {
                return quotedIdentifier(at, at, false);
            }
            if (c == '$') {
                return dollar(at);
            }
            if (isNameStart(c)) {
                return nameOrPrefixedConstant(at, c, c1);
            }
            if (isDigit(c) || c == '.' && isDigit(c1)) {
                return number(at);
            }
            if (c == ':' && (c1 == ':' || c1 == '=') || c == '.' && c1 == '.') {
                return add(Kind.PUNCTUATION, at, at + 2);
            }
            if (PUNCTUATION_CHARS.indexOf(c) >= 0) {
                return add(Kind.PUNCTUATION, at, at + 1);
            }
            if (OPERATOR_CHARS.indexOf(c) >= 0) {
                return operator(at);
            }
            return add(Kind.PUNCTUATION, at, at + 1);
        }

        private int nameOrPrefixedConstant(int at, char c, char c1) {
            if (c1 == '\'') {
                switch (c) {
                    case 'e', 'E' -> {
                        return string(at, at + 1, Quoting.BACKSLASH, false);
                    }
                    case 'b', 'B', 'x', 'X' -> {
                        return string(at, at + 1, Quoting.BITS, false);
                    }
                    case 'n', 'N' -> {
                        return string(at, at + 1, standardStrings ? Quoting.STANDARD : Quoting.BACKSLASH, false);
                    }
                    default -> {
                        // an ordinary name followed by a constant (a syntax error the server reports)
                    }
                }
            }
            if ((c == 'u' || c == 'U') && c1 == '&') {
                if (peek(at + 2) == '\'') {
                    // With standard_conforming_strings off the server refuses these; lexed alike all the same.
                    return string(at, at + 2, Quoting.STANDARD, true);
                }
                if (peek(at + 2) == '"') {
                    return quotedIdentifier(at, at + 2, true);
                }
            }
            int end = at + 1;
            while (end < n && isNamePart(sql.charAt(end))) {
                end++;
            }
            return add(Kind.WORD, at, end);
        }

        private int string(int start, int quote, Quoting quoting, boolean unicode) {
            int end = constants.stringEnd(quote, quoting, unicode);
            return end < 0 ? unclosed(Kind.STRING, start, "has a string constant that is never closed")
                    : add(Kind.STRING, start, end);
        }

        private int quotedIdentifier(int start, int quote, boolean unicode) {
            int end = constants.quotedIdentifierEnd(quote, unicode);
            return end < 0 ? unclosed(Kind.QUOTED_IDENTIFIER, start, "has a quoted identifier that is never closed")
                    : add(Kind.QUOTED_IDENTIFIER, start, end);
        }

        /** A parameter {@code $1}, a dollar-quoted constant, or a lone {@code $}. */
        private int dollar(int at) {
            if (isDigit(peek(at + 1))) {
                int end = at + 1;
                while (end < n && isDigit(sql.charAt(end))) {
                    end++;
                }
                return add(Kind.PARAMETER, at, end);
            }
            String tag = constants.dollarTag(at);
            if (tag == null) {
                return add(Kind.PUNCTUATION, at, at + 1);
            }
            int end = constants.dollarQuoteEnd(at, tag);
            return end < 0 ? unclosed(Kind.STRING, at, "has a dollar-quoted constant " + tag + " that is never closed")
                    : add(Kind.STRING, at, end);
        }

        private int number(int at) {
            char radix = Character.toLowerCase(peek(at + 1));
            if (sql.charAt(at) == '0' && (radix == 'x' || radix == 'o' || radix == 'b')) {
                int end = digits(at + 2, radix);
                if (end > at + 2) {
                    return add(Kind.NUMBER, at, end);
                }
            }
            int end = sql.charAt(at) == '.' ? at : digits(at, 'd');
            if (peek(end) == '.' && peek(end + 1) != '.') {
                end = Math.max(end + 1, digits(end + 1, 'd'));
            }
            char e = peek(end);
            if (e == 'e' || e == 'E') {
                int exponent = peek(end + 1) == '+' || peek(end + 1) == '-' ? end + 2 : end + 1;
                int exponentEnd = digits(exponent, 'd');
                if (exponentEnd > exponent) {
                    end = exponentEnd;
                }
            }
            return add(Kind.NUMBER, at, end);
        }

        /**
         * The end of a run of digits of a radix ('d', 'x', 'o', 'b') starting at {@code from},
         * single underscores allowed between digits (and after a radix prefix); {@code from} when
         * there is none.
         */
        private int digits(int from, char radix) {
            int end = from;
            int i = from;
            while (i < n) {
                int digit = peek(i) == '_' && (i > from || radix != 'd') ? i + 1 : i;
                if (digit < n && isDigitOf(sql.charAt(digit), radix)) {
                    i = digit + 1;
                    end = i;
                } else {
                    break;
                }
            }
            return end;
        }

        private static boolean isDigitOf(char c, char radix) {
            return switch (radix) {
                case 'x' -> isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
                case 'o' -> c >= '0' && c <= '7';
                case 'b' -> c == '0' || c == '1';
                default -> isDigit(c);
            };
        }

        private int operator(int at) {
            int end = at + 1;
            while (end < n && OPERATOR_CHARS.indexOf(sql.charAt(end)) >= 0
                    && !sql.startsWith("--", end) && !sql.startsWith("/*", end)) {
                end++;
            }
            char last = sql.charAt(end - 1);
            if (end - at > 1 && (last == '+' || last == '-') && !keepsTrailingSign(at, end - 1)) {
                do {
                    end--;
                } while (end - at > 1 && (sql.charAt(end - 1) == '+' || sql.charAt(end - 1) == '-'));
            }
            return add(Kind.OPERATOR, at, end);
        }

        private boolean keepsTrailingSign(int from, int to) {
            for (int i = from; i < to; i++) {
                if (KEEPS_TRAILING_SIGN.indexOf(sql.charAt(i)) >= 0) {
                    return true;
                }
            }
            return false;
        }
    }

}
