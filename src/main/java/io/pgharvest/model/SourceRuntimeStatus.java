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
 * @param instance the PostgreSQL instance the source is collected on and what it shares there;
 *     null while not connected or when the instance is unknown (system identifier not readable)
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
        String stretchReason,
        InstanceShare instance) {

    public SourceRuntimeStatus {
        metrics = List.copyOf(metrics);
    }

    /** A status without instance information. */
    public SourceRuntimeStatus(String source, SessionState state, boolean connected, String lastConnectionError,
            Instant lastConnectionErrorAt, String serverVersion, Integer serverVersionNum, Boolean inRecovery,
            String systemIdentifier, Duration tickPeriod, Instant lastTickStart, Duration lastTickDuration, long ticks,
            long skippedTicks, List<MetricRuntimeStatus> metrics, String privilegeWarning, long stretchedTicks,
            String stretchReason) {
        this(source, state, connected, lastConnectionError, lastConnectionErrorAt, serverVersion, serverVersionNum,
                inRecovery, systemIdentifier, tickPeriod, lastTickStart, lastTickDuration, ticks, skippedTicks, metrics,
                privilegeWarning, stretchedTicks, stretchReason, null);
    }

    /**
     * Where the source sits in the engine's instance layer.
     *
     * @param key system identifier and server address
     * @param sources how many sources are collected on the instance now (this one included)
     * @param fannedOutMetrics this source's metrics read once for the whole instance and split per
     *     database (they have an instance-wide variant and another database collects them too)
     */
    public record InstanceShare(String key, int sources, List<String> fannedOutMetrics) {
        public InstanceShare {
            fannedOutMetrics = List.copyOf(fannedOutMetrics);
        }
    }

    /** This status with another state and the error that explains it. */
    public SourceRuntimeStatus withState(SessionState newState, String error, Instant errorAt) {
        return new SourceRuntimeStatus(source, newState, connected, error, errorAt, serverVersion, serverVersionNum,
                inRecovery, systemIdentifier, tickPeriod, lastTickStart, lastTickDuration, ticks, skippedTicks, metrics,
                privilegeWarning, stretchedTicks, stretchReason, instance);
    }
}
