package io.pgharvest.model;

/**
 * A message from outside pgharvest (a monitored server's error, a driver's or a receiver's text)
 * made safe to keep, log and serve: at most {@link #MAX_CHARS} characters, control characters
 * escaped. A monitored server chooses its error texts: one raised a 30-million-character message
 * with ANSI colours and newlines, which was kept on every metric, logged in full with forged
 * lines and served by the status and log endpoints until the heap ran out.
 *
 * <p>Escaped: C0 and C1 control characters and DEL ({@code \n}, {@code \r}, {@code \t} by name,
 * the rest as {@code \u001b}), the Unicode line and paragraph separators and the bidirectional
 * overrides, so a text can neither start a line of its own, colour a terminal nor reorder what a
 * reader sees. A backslash is kept as it is, so escaping a text twice changes nothing. A text cut
 * short ends with {@code …[N characters cut]}, N counted in the original text.
 */
public final class BoundedText {

    /** The most characters a kept, logged or served message has, the cut marker included. */
    public static final int MAX_CHARS = 4096;
    /** Room kept for the cut marker: "…[" + up to 19 digits + " characters cut]". */
    private static final int MARKER_ROOM = 40;

    private BoundedText() {
    }

    /** {@code text} bounded and escaped; the same instance when it needs neither; null stays null. */
    public static String of(String text) {
        if (text == null) {
            return null;
        }
        if (text.length() <= MAX_CHARS && !needsEscape(text)) {
            return text;
        }
        int limit = text.length() <= MAX_CHARS && escapedLength(text) <= MAX_CHARS ? MAX_CHARS : MAX_CHARS - MARKER_ROOM;
        var out = new StringBuilder(Math.min(text.length() + 64, MAX_CHARS));
        int i = 0;
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            String escape = escapeOf(c);
            if (out.length() + (escape == null ? 1 : escape.length()) > limit) {
                break;
            }
            if (escape == null) {
                out.append(c);
            } else {
                out.append(escape);
            }
        }
        if (i < text.length()) {
            out.append("…[").append(text.length() - i).append(" characters cut]");
        }
        return out.toString();
    }

    /** The message of {@code error}, bounded and escaped, or its class name when it has none. */
    public static String messageOf(Throwable error) {
        String message = error.getMessage();
        return message == null ? error.getClass().getSimpleName() : of(message);
    }

    private static int escapedLength(String text) {
        int length = 0;
        for (int i = 0; i < text.length(); i++) {
            String escape = escapeOf(text.charAt(i));
            length += escape == null ? 1 : escape.length();
        }
        return length;
    }

    private static boolean needsEscape(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (escapeOf(text.charAt(i)) != null) {
                return true;
            }
        }
        return false;
    }

    /** How {@code c} is written, or null when it is written as itself. */
    private static String escapeOf(char c) {
        if (c >= 0x20 && c < 0x7f) {
            return null;
        }
        return switch (c) {
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> escaped(c) ? String.format("\\u%04x", (int) c) : null;
        };
    }

    private static boolean escaped(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029'
                || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069');
    }
}
