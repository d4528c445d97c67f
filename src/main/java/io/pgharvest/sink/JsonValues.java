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
 *
 * <p>Numbers are written the way pgwatch's Go encoder writes them, because Grafana dashboards made
 * for pgwatch cast them with {@code (data->>'x')::int8}, which fails on {@code 100.0}: a whole
 * number has no fraction ({@code 150018}, not {@code 150018.0}; a {@code numeric} of
 * {@code 100.00} is {@code 100}), other doubles take the shortest form that reads back to the same
 * value, in plain notation from 1e-6 up to 1e21 and in exponent notation ({@code 1e+21},
 * {@code 1.5e-7}) outside it.
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
            case BigDecimal bd -> writeDecimal(json, bd);
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
            json.writeNumber(formatDouble(d));
        } else {
            json.writeNull();
        }
    }

    /** A finite double as pgwatch's encoder (Go's encoding/json) spells it. */
    static String formatDouble(double d) {
        if (d == 0) {
            return "0";
        }
        // Fast paths, the same text without a BigDecimal (formatting was a tenth of what the
        // collector allocated at 300 sources): most values are counters held in a double.
        double abs = Math.abs(d);
        if (abs < 0x1p53 && d == Math.rint(d)) { // below 2^53 a whole double is its exact integer
            return Long.toString((long) d);
        }
        if (abs >= 1e-3 && abs < 1e7) {
            return Double.toString(d); // plain notation, shortest digits, no trailing zero when not whole
        }
        return spelledExactly(d);
    }

    /** {@link #formatDouble} by the decimal route, for every finite double: what the fast paths must equal. */
    static String spelledExactly(double d) {
        if (d == 0) {
            return "0";
        }
        double abs = Math.abs(d);
        // Double.toString gives the shortest digits that read back to d (JDK 19+).
        var shortest = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        if (abs >= 1e-6 && abs < 1e21) {
            return shortest.toPlainString();
        }
        String digits = shortest.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - shortest.scale();
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        return (d < 0 ? "-" : "") + mantissa + "e" + (exponent < 0 ? "-" : "+") + Math.abs(exponent);
    }

    private static void writeDecimal(JsonGenerator json, BigDecimal value) {
        BigDecimal stripped = value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros();
        json.writeNumber(stripped.scale() < 0 ? stripped.setScale(0).toPlainString() : stripped.toPlainString());
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
