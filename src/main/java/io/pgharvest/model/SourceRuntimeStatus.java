package io.pgharvest.model;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What a source's reaper is doing, for the status endpoint and health. Built by the reaper at
 * the end of each tick and published as an immutable value.
 *
 * @param state where the reaper stands with its session
 * @param lastConnectionError the last error connecting or the error that broke the session
 * @param skippedTicks grid points passed without a run because a tick overran
 * @param privilegeWarning set when the session's role is a superuser or can write
 * @param stretchedTicks ticks not run because the server was slow and the source's schedule was
 *     stretched (pgharvest.reaper.max-stretch)
 * @param stretchReason why the schedule is (or was last) stretched and until when; null if never
 */
public record SourceRuntimeStatus(
        String source,
        SessionState state,
        boolean connected,
        String lastConnectionError,
        Instant lastConnectionErrorAt,
        String serverVersion,
        Integer serverVersionNum,
        Boolean inRecovery,
        String systemIdentifier,
        Duration tickPeriod,
        Instant lastTickStart,
        Duration lastTickDuration,
        long ticks,
        long skippedTicks,
        List<MetricRuntimeStatus> metrics,
        String privilegeWarning,
        long stretchedTicks,
        String stretchReason) {

    public SourceRuntimeStatus {
        metrics = List.copyOf(metrics);
    }

    /** This status with another state and the error that explains it. */
    public SourceRuntimeStatus withState(SessionState newState, String error, Instant errorAt) {
        return new SourceRuntimeStatus(source, newState, connected, error, errorAt, serverVersion, serverVersionNum,
                inRecovery, systemIdentifier, tickPeriod, lastTickStart, lastTickDuration, ticks, skippedTicks, metrics,
                privilegeWarning, stretchedTicks, stretchReason);
    }
}
