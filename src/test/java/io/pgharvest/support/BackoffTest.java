package io.pgharvest.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class BackoffTest {

    private final Backoff backoff = new Backoff(Duration.ofMillis(250), Duration.ofSeconds(5));

    @Test
    void theDelayDoublesFromTheFirstFailureUpToTheCap() {
        assertThat(backoff.after(0)).isEqualTo(Duration.ZERO);
        assertThat(backoff.after(1)).isEqualTo(Duration.ofMillis(250));
        assertThat(backoff.after(2)).isEqualTo(Duration.ofMillis(500));
        assertThat(backoff.after(5)).isEqualTo(Duration.ofSeconds(4));
        assertThat(backoff.after(6)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aLongRunOfFailuresStaysAtTheCapWithoutOverflowing() {
        assertThat(backoff.after(31)).isEqualTo(Duration.ofSeconds(5));
        assertThat(backoff.after(64)).isEqualTo(Duration.ofSeconds(5));
        assertThat(backoff.after(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(5));
    }
}
