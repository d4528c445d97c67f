package io.pgharvest.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** Numbers are spelt as pgwatch's Go encoder spells them (dashboards cast them to int8). */
@Tag("fast")
class JsonValuesTest {

    @Test
    void doublesTakeGosShortestFormWithoutAFractionForWholeNumbers() {
        assertThat(JsonValues.formatDouble(150018.0)).isEqualTo("150018");
        assertThat(JsonValues.formatDouble(-100.0)).isEqualTo("-100");
        assertThat(JsonValues.formatDouble(0.0)).isEqualTo("0");
        assertThat(JsonValues.formatDouble(-0.0)).isEqualTo("0");
        assertThat(JsonValues.formatDouble(0.1)).isEqualTo("0.1");
        assertThat(JsonValues.formatDouble(1e20)).isEqualTo("100000000000000000000");
        assertThat(JsonValues.formatDouble(1e21)).isEqualTo("1e+21");
        assertThat(JsonValues.formatDouble(1.5e-7)).isEqualTo("1.5e-7");
        assertThat(JsonValues.formatDouble(-2.5e-10)).isEqualTo("-2.5e-10");
        assertThat(JsonValues.formatDouble(1e-6)).isEqualTo("0.000001");
        assertThat(JsonValues.formatDouble(123456.789)).isEqualTo("123456.789");
    }

    /** The fast paths (whole numbers, plain decimals) spell every double as the exact decimal route does. */
    @Test
    void theFastPathsSpellDoublesAsTheDecimalRouteDoes() {
        var random = new java.util.Random(23);
        for (int i = 0; i < 200_000; i++) {
            double magnitude = Math.pow(10, random.nextInt(50) - 25);
            double d = switch (i % 4) {
                case 0 -> Math.rint(random.nextDouble() * magnitude); // whole numbers
                case 1 -> random.nextGaussian() * magnitude;
                case 2 -> Math.round(random.nextDouble() * 1e6) / 100.0; // money-like
                default -> Double.longBitsToDouble(random.nextLong()); // any bit pattern
            };
            if (Double.isFinite(d)) {
                assertThat(JsonValues.formatDouble(d)).as("%s", d).isEqualTo(JsonValues.spelledExactly(d));
            }
        }
    }

    @Test
    void aMapOfMixedValuesIsWrittenWithIntegralNumbersAsIntegers() {
        var values = new LinkedHashMap<String, Object>();
        values.put("d", 3.0);
        values.put("f", 2.5f);
        values.put("l", 7L);
        values.put("n", new BigDecimal("42.000"));
        values.put("z", new BigDecimal("0.00"));
        values.put("e", new BigDecimal("2E+2"));
        values.put("nan", Double.NaN);
        var out = new StringWriter();
        try (var json = JsonMapper.builder().build().createGenerator(out)) {
            JsonValues.writeObject(json, values);
        }
        assertThat(out.toString()).isEqualTo("{\"d\":3,\"f\":2.5,\"l\":7,\"n\":42,\"z\":0,\"e\":200,\"nan\":null}");
    }
}
