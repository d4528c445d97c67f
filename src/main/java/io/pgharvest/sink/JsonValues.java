package io.pgharvest.sink;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import java.util.OptionalDouble;
import tools.jackson.core.JsonGenerator;

/**
 * Writes measurement values as JSON that every consumer can read back: NaN and infinities become
 * {@code null} (JSON has no such numbers; writing them as strings would change a column's type),
 * NUL characters and unpaired surrogates become U+FFFD (PostgreSQL's jsonb rejects
 * {@code \u0000}, UTF-8 cannot encode a lone surrogate), and anything that is
 * not a number, string or boolean is written as its {@code toString()}.
 */
public final class JsonValues {

    private JsonValues() {
    }

    public static void writeValue(JsonGenerator json, Object value) {
        switch (value) {
            case null -> json.writeNull();
            case Double d -> writeDouble(json, d);
            case Float f -> writeDouble(json, f.doubleValue());
            case Integer i -> json.writeNumber(i);
            case Long l -> json.writeNumber(l);
            case Short s -> json.writeNumber(s);
            case Byte b -> json.writeNumber(b);
            case BigDecimal bd -> json.writeNumber(bd);
            case BigInteger bi -> json.writeNumber(bi);
            case Number n -> writeDouble(json, n.doubleValue());
            case Boolean b -> json.writeBoolean(b);
            case CharSequence s -> json.writeString(clean(s.toString()));
            default -> json.writeString(clean(value.toString()));
        }
    }

    /** Writes {@code map} as a JSON object, values through {@link #writeValue}. */
    public static void writeObject(JsonGenerator json, Map<String, ?> map) {
        json.writeStartObject();
        // forEach, not entrySet(): a result row's map walks its cells without an entry object each.
        map.forEach((name, value) -> {
            json.writeName(clean(name));
            writeValue(json, value);
        });
        json.writeEndObject();
    }

    /** The value as a double when it is a number or boolean; empty for anything else. */
    public static OptionalDouble numeric(Object value) {
        return switch (value) {
            case Number n -> OptionalDouble.of(n.doubleValue());
            case Boolean b -> OptionalDouble.of(b ? 1 : 0);
            case null, default -> OptionalDouble.empty();
        };
    }

    private static void writeDouble(JsonGenerator json, double d) {
        if (Double.isFinite(d)) {
            json.writeNumber(d);
        } else {
            json.writeNull();
        }
    }

    /** Replaces NUL and unpaired surrogates (which no UTF-8 encoder accepts) with U+FFFD. */
    public static String clean(String s) {
        int length = s.length();
        int i = 0;
        while (i < length) {
            char ch = s.charAt(i);
            if (ch == '\0' || Character.isSurrogate(ch)) {
                break;
            }
            i++;
        }
        if (i == length) {
            return s;
        }
        var out = new StringBuilder(length).append(s, 0, i);
        for (; i < length; i++) {
            char ch = s.charAt(i);
            if (Character.isHighSurrogate(ch) && i + 1 < length && Character.isLowSurrogate(s.charAt(i + 1))) {
                out.append(ch).append(s.charAt(++i));
            } else if (ch == '\0' || Character.isSurrogate(ch)) {
                out.append('\uFFFD');
            } else {
                out.append(ch);
            }
        }
        return out.toString();
    }
}
