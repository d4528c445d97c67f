package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.support.ChangeNotifier;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("fast")
class BlockingQueryParametersTest {

    @ParameterizedTest
    @CsvSource({"250ms, PT0.25S", "30s, PT30S", "5m, PT5M", "1m30s, PT1M30S", "2h, PT10M", "11m, PT10M"})
    void waitDurationsParseAndAreCappedAtTenMinutes(String wait, Duration expected) {
        assertThat(BlockingQuery.parse("1", wait).maxWait()).isEqualTo(expected);
    }

    @Test
    void withoutWaitTheDefaultIsFiveMinutes() {
        assertThat(BlockingQuery.parse("3", null)).isEqualTo(new BlockingQuery(3L, Duration.ofMinutes(5)));
    }

    @Test
    void unparseableValuesNameTheirParameter() {
        assertThatThrownBy(() -> BlockingQuery.parse("x", "5 minutes"))
                .isInstanceOfSatisfying(InvalidParameterException.class, e -> assertThat(e.problems())
                        .extracting(p -> p.field()).containsExactly("index", "wait"));
    }

    @Test
    void withoutIndexOrWithADifferentIndexItAnswersAtOnce() {
        var notifier = new ChangeNotifier(7);

        assertThat(BlockingQuery.parse(null, "10m").await(notifier)).isEqualTo(7);
        assertThat(BlockingQuery.parse("3", "10m").await(notifier)).isEqualTo(7);
        assertThat(BlockingQuery.parse("99", "10m").await(notifier)).isEqualTo(7);
    }

    @Test
    void theWaitIncludesAtMostASixteenthOfJitter() {
        var notifier = new ChangeNotifier(7);
        long started = System.nanoTime();

        long index = BlockingQuery.parse("7", "160ms").await(notifier);

        long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
        assertThat(index).isEqualTo(7);
        assertThat(elapsedMillis).isGreaterThanOrEqualTo(160);
    }
}
