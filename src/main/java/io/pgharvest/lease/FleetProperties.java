package io.pgharvest.lease;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.time.Duration;
import java.util.List;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How this instance shares the fleet with other instances on the same configuration database
 * ({@code pgharvest.store.url}); bound from {@code pgharvest.fleet.*}, used only with that store.
 *
 * @param instanceId this instance's name in the fleet, unique among running instances; default:
 *     host name plus a random suffix. A stable id lets a restarted instance take its sources back
 *     before their leases expire.
 * @param leaseDuration how long a source stays with an instance that stopped renewing; a dead
 *     instance's sources are taken over after at most this plus one renew interval
 * @param renewInterval how often an instance heartbeats, renews its leases and rebalances; at
 *     most a third of the lease duration
 * @param groups pgwatch's static {@code group} filter: when set, this instance only collects
 *     sources whose group is listed
 * @param maxMovesPerRenew at most this many sources an instance hands over per renew interval
 *     when the fleet rebalances (an instance joined), so that a join causes no reconnect burst
 */
@ConfigurationProperties("pgharvest.fleet")
@Validated
public record FleetProperties(
        @Pattern(regexp = "[A-Za-z0-9._:-]{1,100}", message = "must be 1 to 100 letters, digits or ._:-") String instanceId,
        @DefaultValue("15s") @NotNull @DurationMin(seconds = 3) @DurationMax(seconds = 25) Duration leaseDuration,
        @DefaultValue("3s") @NotNull @DurationMin(millis = 200) @DurationMax(seconds = 8) Duration renewInterval,
        @DefaultValue List<String> groups,
        @DefaultValue("5") @Min(1) @Max(1000) int maxMovesPerRenew) {

    public FleetProperties {
        groups = groups == null ? List.of() : List.copyOf(groups);
        instanceId = instanceId == null || instanceId.isBlank() ? null : instanceId;
    }

    /** Takeover within 30 s needs lease + renew below it; renewing three times per lease survives a missed renew. */
    @AssertTrue(message = "pgharvest.fleet.renew-interval must be at most a third of pgharvest.fleet.lease-duration")
    public boolean isRenewIntervalShortEnough() {
        return leaseDuration == null || renewInterval == null
                || renewInterval.multipliedBy(3).compareTo(leaseDuration) <= 0;
    }
}
