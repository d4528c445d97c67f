package io.pgharvest.kind.patroni;

import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * Settings of Patroni sources ({@code pgharvest.patroni.*}).
 *
 * @param pollInterval how often the DCS is read for each Patroni source: members joining or
 *     leaving, and role changes, after which the members re-read their servers' recovery state on
 *     every tick for a while (so a promotion is followed on the first tick after it)
 * @param apiMetricsInterval how often each member's REST API {@code /metrics} is read for the
 *     {@code patroni_*} metrics, in whole seconds (the reaper schedules by seconds); 0 turns them off
 * @param requestTimeout time limit of one request to etcd or to a member's REST API
 */
@Validated
@ConfigurationProperties("pgharvest.patroni")
public record PatroniProperties(
        @NotNull @DefaultValue("5s") Duration pollInterval,
        @NotNull @DefaultValue("30s") Duration apiMetricsInterval,
        @NotNull @DefaultValue("5s") Duration requestTimeout) {

    public PatroniProperties {
        if (pollInterval != null && pollInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("pgharvest.patroni.poll-interval must be at least 1s, got "
                    + pollInterval);
        }
        if (apiMetricsInterval != null && !apiMetricsInterval.isZero()
                && apiMetricsInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("pgharvest.patroni.api-metrics-interval must be 0 (off) or at least"
                    + " 1s, got " + apiMetricsInterval);
        }
        if (apiMetricsInterval != null && apiMetricsInterval.toNanosPart() != 0) {
            throw new IllegalArgumentException("pgharvest.patroni.api-metrics-interval must be whole seconds, got "
                    + apiMetricsInterval);
        }
        if (requestTimeout != null && (requestTimeout.isNegative() || requestTimeout.isZero())) {
            throw new IllegalArgumentException("pgharvest.patroni.request-timeout must be positive, got "
                    + requestTimeout);
        }
    }
}
