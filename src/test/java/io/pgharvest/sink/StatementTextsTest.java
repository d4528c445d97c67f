package io.pgharvest.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StatementTextsTest {

    private final AtomicLong now = new AtomicLong(0);
    private final StatementTexts texts = new StatementTexts(now::get);

    @Test
    void sourceThatStopsSendingIsForgottenAfterAnHourWhileActiveOnesKeepTheirTexts() {
        texts.remember(queryText("gone", "1", "select $1"));
        texts.remember(queryText("active", "2", "select $1, $2"));
        for (int minute = 1; minute <= 61; minute++) {
            now.set(TimeUnit.MINUTES.toNanos(minute));
            texts.remember(queryStats("active", "2"));
        }
        assertThat(texts.textOf("gone", "1")).isNull();
        assertThat(texts.textOf("active", "2")).isEqualTo("select $1, $2");
        assertThat(texts.sources()).isEqualTo(1);
    }

    @Test
    void sourceHeardOfWithinTheHourKeepsItsTexts() {
        texts.remember(queryText("quiet", "1", "select $1"));
        now.set(TimeUnit.MINUTES.toNanos(59));
        texts.remember(queryStats("other", "9"));
        assertThat(texts.textOf("quiet", "1")).isEqualTo("select $1");
    }

    private static Measurement queryText(String source, String queryId, String text) {
        return new Measurement(source, StatementTexts.QUERY_TEXTS, Instant.EPOCH,
                List.of(new Measurement.Row(Map.of(StatementTexts.TEXT_COLUMN, text), Map.of(StatementTexts.QUERY_ID_TAG, queryId))),
                Map.of());
    }

    private static Measurement queryStats(String source, String queryId) {
        return new Measurement(source, StatementTexts.QUERY_STATS, Instant.EPOCH,
                List.of(new Measurement.Row(Map.of("calls", 1L), Map.of(StatementTexts.QUERY_ID_TAG, queryId))),
                Map.of());
    }
}
