package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.sql.LiteralRedactor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The memo answers what the redactor answers, for texts seen before, new ones and across generations. */
@Tag("fast")
class RedactedTextsTest {

    @Test
    void answersWhatTheRedactorAnswersBeforeAndAfterItsGenerationsTurn() {
        List<String> texts = new ArrayList<>(List.of(
                "select * from t where a = 'secret' and b = 42",
                "select $1, $2 from t where c = E'it\\'s'",
                "update t set x = $$dollar$$ where id = 7 -- comment",
                "select 'unterminated",
                "select * from t where a = $1"));
        // Enough distinct texts to turn the generations several times (1 M characters each).
        for (int i = 0; texts.size() < 40_000; i++) {
            texts.add("select count(*) from table_" + i + " where name = 'user" + i + "@example.com' and n > " + i);
        }
        for (int round = 0; round < 2; round++) {
            for (String text : texts) {
                String expected = LiteralRedactor.redact(text);
                assertThat(RedactedTexts.redact(text)).isEqualTo(expected).doesNotContain("@example.com");
            }
        }
        String longest = "select '" + "x".repeat(RedactedTexts.LONGEST) + "'";
        assertThat(RedactedTexts.redact(longest)).isEqualTo(LiteralRedactor.redact(longest));
        assertThat(RedactedTexts.redact(null)).isNull();
        assertThat(RedactedTexts.redact("")).isEmpty();
    }
}
