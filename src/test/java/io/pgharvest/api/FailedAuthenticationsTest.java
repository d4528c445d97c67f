package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class FailedAuthenticationsTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
    private final FailedAuthentications failures = new FailedAuthentications(
            new AuthThrottleProperties(3, Duration.ofSeconds(60), Duration.ofMinutes(4), 100), now::get);

    @Test
    void aClientMaySendAFewWrongTokensPerMinuteThenWaitsABackOffThatDoublesPerBurst() {
        for (int i = 0; i < 3; i++) {
            assertThat(failures.failed("10.0.0.1")).isZero();
        }
        assertThat(failures.failed("10.0.0.1")).isEqualTo(60);
        assertThat(failures.retryAfterSeconds("10.0.0.1")).isEqualTo(60);
        assertThat(failures.retryAfterSeconds("10.0.0.2")).as("another client").isZero();

        advance(Duration.ofSeconds(61));
        assertThat(failures.retryAfterSeconds("10.0.0.1")).isZero();
        for (int i = 0; i < 3; i++) {
            failures.failed("10.0.0.1");
        }
        assertThat(failures.failed("10.0.0.1")).as("second burst").isEqualTo(120);
        advance(Duration.ofSeconds(121));
        for (int i = 0; i < 3; i++) {
            failures.failed("10.0.0.1");
        }
        assertThat(failures.failed("10.0.0.1")).isEqualTo(240);
        advance(Duration.ofSeconds(241));
        for (int i = 0; i < 3; i++) {
            failures.failed("10.0.0.1");
        }
        assertThat(failures.failed("10.0.0.1")).as("capped at max-back-off").isEqualTo(240);
    }

    @Test
    void failuresSpreadOverMoreThanAMinuteNeverThrottle() {
        for (int i = 0; i < 20; i++) {
            assertThat(failures.failed("10.0.0.3")).isZero();
            advance(Duration.ofSeconds(21));
        }
    }

    @Test
    void aClientQuietForLongerThanTheLongestBackOffStartsAgainAtTheFirst() {
        for (int burst = 0; burst < 3; burst++) {
            for (int i = 0; i < 4; i++) {
                failures.failed("10.0.0.4");
            }
            advance(Duration.ofMinutes(5));
        }
        advance(Duration.ofMinutes(5));
        for (int i = 0; i < 3; i++) {
            failures.failed("10.0.0.4");
        }
        assertThat(failures.failed("10.0.0.4")).isEqualTo(60);
    }

    @Test
    void aFloodFromManyAddressesIsRememberedUpToTheBoundOnly() {
        for (int i = 0; i < 100_000; i++) {
            failures.failed("10." + (i >> 16 & 0xFF) + "." + (i >> 8 & 0xFF) + "." + (i & 0xFF));
        }
        assertThat(failures.remembered()).isEqualTo(100);
    }

    @Test
    void anIpv6ClientIsItsSlash64Network() {
        assertThat(FailedAuthentications.key("2001:db8:1:2:aaaa::1"))
                .isEqualTo(FailedAuthentications.key("2001:db8:1:2:bbbb:cccc:dddd:eeee"))
                .isNotEqualTo(FailedAuthentications.key("2001:db8:1:3::1"));
        assertThat(FailedAuthentications.key("127.0.0.1")).isEqualTo("127.0.0.1");
    }

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }
}
