package io.pgharvest.operations.selfmetrics;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * pgharvest's own state as measurements (docs/alerts.md, "pgharvest's own trouble").
 *
 * @param enabled whether {@code self_sinks} and {@code self_reapers} are published at all; off, the
 *     built-in rules on them never fire
 * @param interval how often they are published
 */
@ConfigurationProperties("pgharvest.self-metrics")
@Validated
public record SelfMetricsProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("10s") @NotNull @DurationMin(millis = 100) @DurationMax(minutes = 10) Duration interval) {
}
