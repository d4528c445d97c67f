package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class BoundedTextTest {

    @Test
    void aShortPlainTextIsKeptAsItIs() {
        String text = "metric m failed [SQLState 22012]: ERROR: division by zero";
        assertThat(BoundedText.of(text)).isSameAs(text);
        assertThat(BoundedText.of(null)).isNull();
    }

    @Test
    void controlCharactersCannotStartALineColourATerminalOrReorderText() {
        assertThat(BoundedText.of("a\nb\rc\td\u001b[31me\u0000f\u007fg\u009bh\u2028i\u202ej"))
                .isEqualTo("a\\nb\\rc\\td\\u001b[31me\\u0000f\\u007fg\\u009bh\\u2028i\\u202ej");
        assertThat(BoundedText.of("naïve – 数据 …")).isEqualTo("naïve – 数据 …");
    }

    @Test
    void aLongTextIsCutWithAMarkerSayingHowMuchOfTheOriginalWasCut() {
        String bounded = BoundedText.of("x".repeat(30_000_000));
        assertThat(bounded).hasSizeLessThanOrEqualTo(BoundedText.MAX_CHARS).startsWith("xxxx");
        int shown = bounded.indexOf('…');
        assertThat(bounded.substring(shown)).isEqualTo("…[" + (30_000_000 - shown) + " characters cut]");
    }

    @Test
    void escapesCountTowardsTheBoundAndBoundingTwiceChangesNothing() {
        String bounded = BoundedText.of("\n".repeat(BoundedText.MAX_CHARS));
        assertThat(bounded).hasSizeLessThanOrEqualTo(BoundedText.MAX_CHARS).startsWith("\\n\\n").contains("characters cut]");
        assertThat(BoundedText.of(bounded)).isSameAs(bounded);
        String exact = "y".repeat(BoundedText.MAX_CHARS);
        assertThat(BoundedText.of(exact)).isSameAs(exact);
        assertThat(BoundedText.of(exact + "z")).contains("…[").hasSizeLessThanOrEqualTo(BoundedText.MAX_CHARS);
    }
}
