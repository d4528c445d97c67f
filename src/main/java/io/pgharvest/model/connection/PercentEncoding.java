package io.pgharvest.model.connection;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * RFC 3986 percent-encoding as libpq applies it to connection URIs ('+' is not a space). Public for
 * the kinds whose own connection syntax is a URI too (a kind's {@link ConnectionSyntax}).
 */
public final class PercentEncoding {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private PercentEncoding() {
    }

    /**
     * Decodes {@code text}; {@code part} names it in the error ("the password"), because the
     * text itself may be secret and is never put into a message.
     */
    public static String decode(String text, String part) {
        if (text.indexOf('%') < 0) {
            return text;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '%') {
                // Whole code points: a surrogate pair encoded one char at a time would become "??".
                int codePoint = text.codePointAt(i);
                bytes.writeBytes(Character.toString(codePoint).getBytes(StandardCharsets.UTF_8));
                i += Character.charCount(codePoint) - 1;
                continue;
            }
            int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
            int low = high >= 0 ? Character.digit(text.charAt(i + 2), 16) : -1;
            if (low < 0) {
                throw new InvalidConnectionStringException("invalid percent-encoding in " + part);
            }
            bytes.write(high << 4 | low);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new InvalidConnectionStringException("invalid UTF-8 in " + part + " after percent-decoding");
        }
    }

    /** Encodes every character except RFC 3986 unreserved ones and those in {@code keep}. */
    public static String encode(String text, String keep) {
        StringBuilder out = new StringBuilder(text.length());
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xFF);
            if (isUnreserved(c) || (c < 0x80 && keep.indexOf(c) >= 0)) {
                out.append(c);
            } else {
                out.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
            }
        }
        return out.toString();
    }

    public static String encode(String text) {
        return encode(text, "");
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }
}
