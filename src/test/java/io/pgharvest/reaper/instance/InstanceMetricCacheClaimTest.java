package io.pgharvest.reaper.instance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * One fetch at a time per shared metric: while one source holds the claim, the others do not
 * fetch; the claim ends when released, or when it lapses because its holder never settled it.
 */
@Tag("fast")
class InstanceMetricCacheClaimTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final Duration INTERVAL = Duration.ofSeconds(30);

    @Test
    void aSecondSourceDoesNotFetchWhileTheFirstHoldsTheClaim() {
        var cache = new InstanceMetricCache();

        assertThat(cache.tryClaim("stat_statements", T0, T0.plus(INTERVAL))).isTrue();
        assertThat(cache.tryClaim("stat_statements", T0.plusMillis(300), T0.plusMillis(300).plus(INTERVAL))).isFalse();
        assertThat(cache.tryClaim("wal_stats", T0.plusMillis(300), T0.plusMillis(300).plus(INTERVAL)))
                .as("claims are per metric").isTrue();

        cache.putSplit("stat_statements", T0, java.util.Map.of());
        cache.release("stat_statements");
        // the result is there for the second source's next tick
        assertThat(cache.reusable("stat_statements", INTERVAL, T0.plusSeconds(30), null)).isPresent();
        assertThat(cache.tryClaim("stat_statements", T0.plusSeconds(1), T0.plusSeconds(31))).isTrue();
    }

    @Test
    void aClaimWhoseHolderNeverSettlesLapses() {
        var cache = new InstanceMetricCache();
        assertThat(cache.tryClaim("locks", T0, T0.plus(INTERVAL))).isTrue();

        assertThat(cache.tryClaim("locks", T0.plus(INTERVAL).minusMillis(1), T0.plusSeconds(60))).isFalse();
        assertThat(cache.tryClaim("locks", T0.plus(INTERVAL), T0.plusSeconds(60))).isTrue();
    }
}
