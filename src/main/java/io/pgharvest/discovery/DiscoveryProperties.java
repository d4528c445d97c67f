package io.pgharvest.discovery;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of source discovery ({@code pgharvest.discovery.*}).
 *
 * @param interval how often a discovering source (continuous discovery, ...) looks again for the
 *     sources it stands for; pgwatch's {@code --refresh} default is 120 s too
 * @param retiredStatusRetention how long the last status of a discovered source that disappeared
 *     stays visible in its configured source's status
 */
@Validated
@ConfigurationProperties("pgharvest.discovery")
public record DiscoveryProperties(
        @NotNull @DefaultValue("2m") Duration interval,
        @NotNull @DefaultValue("10m") Duration retiredStatusRetention) {

    public DiscoveryProperties {
        if (interval != null && (interval.isNegative() || interval.compareTo(Duration.ofSeconds(1)) < 0)) {
            throw new IllegalArgumentException("pgharvest.discovery.interval must be at least 1s, got " + interval);
        }
        if (retiredStatusRetention != null && retiredStatusRetention.isNegative()) {
            throw new IllegalArgumentException(
                    "pgharvest.discovery.retired-status-retention must not be negative, got " + retiredStatusRetention);
        }
    }

    public static DiscoveryProperties defaults() {
        return new DiscoveryProperties(Duration.ofMinutes(2), Duration.ofMinutes(10));
    }
}
