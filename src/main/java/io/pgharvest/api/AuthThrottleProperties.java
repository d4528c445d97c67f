package io.pgharvest.api;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How many wrong API tokens a client may send before it has to wait ({@link FailedAuthentications}).
 * A client is one remote address (IPv6: its /64 network, which one host usually holds whole).
 *
 * @param failuresPerMinute wrong tokens a client may send within a minute; the next one starts a
 *     back-off, answered 429 with {@code Retry-After}, during which the client's requests are
 *     refused without looking at their token (the right one included)
 * @param firstBackOff how long the first back-off lasts; each further burst of the same client
 *     doubles it, up to {@code maxBackOff}
 * @param maxBackOff the longest back-off; a client whose last back-off ended longer ago than this
 *     starts again at {@code firstBackOff}
 * @param maxClients clients whose failures are remembered at once; past it the least recently
 *     seen is forgotten, so a flood from many addresses costs a bounded amount of memory (about
 *     200 bytes per client)
 */
@ConfigurationProperties("pgharvest.api.auth-throttle")
@Validated
public record AuthThrottleProperties(
        @DefaultValue("10") @Min(1) @Max(10_000) int failuresPerMinute,
        @DefaultValue("60s") @NotNull @DurationMin(seconds = 1) @DurationMax(hours = 24) Duration firstBackOff,
        @DefaultValue("15m") @NotNull @DurationMin(seconds = 1) @DurationMax(hours = 24) Duration maxBackOff,
        @DefaultValue("10000") @Min(100) @Max(1_000_000) int maxClients) {

    /** A first back-off longer than the longest would never be used as given. */
    @AssertTrue(message = "pgharvest.api.auth-throttle.first-back-off must not be longer than"
            + " pgharvest.api.auth-throttle.max-back-off")
    public boolean isFirstBackOffWithinMax() {
        return firstBackOff == null || maxBackOff == null || firstBackOff.compareTo(maxBackOff) <= 0;
    }
}
