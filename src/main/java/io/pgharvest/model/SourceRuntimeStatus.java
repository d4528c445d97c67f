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
 * @param noticeWarning set once the server sent the session more notices than pgharvest keeps per
 *     round trip (the rest were dropped unread), with how many; null otherwise
 * @param undeliveredMetrics the metrics being collected (pipeline or solo lane) that have delivered
 *     nothing for {@link #UNDELIVERED_AFTER_INTERVALS} of their intervals while the source was
 *     connected, by name: never skipped silently (also the meter {@code pgharvest.metrics.undelivered})
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
        InstanceShare instance,
        String noticeWarning,
        List<String> undeliveredMetrics) {

    /** Intervals without a delivery after which a collected metric is reported undelivered. */
    public static final int UNDELIVERED_AFTER_INTERVALS = 3;

    public SourceRuntimeStatus {
        metrics = List.copyOf(metrics);
        undeliveredMetrics = undeliveredMetrics == null ? List.of() : List.copyOf(undeliveredMetrics);
        lastConnectionError = BoundedText.of(lastConnectionError);
        stretchReason = BoundedText.of(stretchReason);
    }

    /** A status without instance information. */
    public SourceRuntimeStatus(String source, SessionState state, boolean connected, String lastConnectionError,
            Instant lastConnectionErrorAt, String serverVersion, Integer serverVersionNum, Boolean inRecovery,
            String systemIdentifier, Duration tickPeriod, Instant lastTickStart, Duration lastTickDuration, long ticks,
            long skippedTicks, List<MetricRuntimeStatus> metrics, String privilegeWarning, long stretchedTicks,
            String stretchReason) {
        this(source, state, connected, lastConnectionError, lastConnectionErrorAt, serverVersion, serverVersionNum,
                inRecovery, systemIdentifier, tickPeriod, lastTickStart, lastTickDuration, ticks, skippedTicks, metrics,
                privilegeWarning, stretchedTicks, stretchReason, null, null, List.of());
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

    /** A status of {@code source} in {@code state}, built field by field; what is not set is unknown (null, 0). */
    public static Builder builder(String source, SessionState state) {
        return new Builder(source, state);
    }

    /** Builds a {@link SourceRuntimeStatus} by name rather than by position. */
    public static final class Builder {
        private final String source;
        private final SessionState state;
        private boolean connected;
        private String lastConnectionError;
        private Instant lastConnectionErrorAt;
        private String serverVersion;
        private Integer serverVersionNum;
        private Boolean inRecovery;
        private String systemIdentifier;
        private Duration tickPeriod;
        private Instant lastTickStart;
        private Duration lastTickDuration;
        private long ticks;
        private long skippedTicks;
        private List<MetricRuntimeStatus> metrics = List.of();
        private String privilegeWarning;
        private long stretchedTicks;
        private String stretchReason;
        private InstanceShare instance;
        private String noticeWarning;
        private List<String> undeliveredMetrics = List.of();

        private Builder(String source, SessionState state) {
            this.source = source;
            this.state = state;
        }

        public Builder connected(boolean isConnected) {
            this.connected = isConnected;
            return this;
        }

        public Builder connectionError(String error, Instant at) {
            this.lastConnectionError = error;
            this.lastConnectionErrorAt = at;
            return this;
        }

        /** What the server said of itself; {@code versionNum} null for an endpoint that is not PostgreSQL. */
        public Builder server(String version, Integer versionNum, Boolean recovering, String systemId) {
            this.serverVersion = version;
            this.serverVersionNum = versionNum;
            this.inRecovery = recovering;
            this.systemIdentifier = systemId;
            return this;
        }

        public Builder tickPeriod(Duration period) {
            this.tickPeriod = period;
            return this;
        }

        public Builder lastTick(Instant start, Duration duration) {
            this.lastTickStart = start;
            this.lastTickDuration = duration;
            return this;
        }

        public Builder ticks(long run, long skipped) {
            this.ticks = run;
            this.skippedTicks = skipped;
            return this;
        }

        public Builder metrics(List<MetricRuntimeStatus> list) {
            this.metrics = list;
            return this;
        }

        public Builder privilegeWarning(String warning) {
            this.privilegeWarning = warning;
            return this;
        }

        public Builder stretch(long stretched, String reason) {
            this.stretchedTicks = stretched;
            this.stretchReason = reason;
            return this;
        }

        public Builder instance(InstanceShare share) {
            this.instance = share;
            return this;
        }

        public Builder noticeWarning(String warning) {
            this.noticeWarning = warning;
            return this;
        }

        public Builder undeliveredMetrics(List<String> names) {
            this.undeliveredMetrics = names;
            return this;
        }

        public SourceRuntimeStatus build() {
            return new SourceRuntimeStatus(source, state, connected, lastConnectionError, lastConnectionErrorAt,
                    serverVersion, serverVersionNum, inRecovery, systemIdentifier, tickPeriod, lastTickStart,
                    lastTickDuration, ticks, skippedTicks, metrics, privilegeWarning, stretchedTicks, stretchReason,
                    instance, noticeWarning, undeliveredMetrics);
        }
    }

    /** This status with another state and the error that explains it. */
    public SourceRuntimeStatus withState(SessionState newState, String error, Instant errorAt) {
        return new SourceRuntimeStatus(source, newState, connected, error, errorAt, serverVersion, serverVersionNum,
                inRecovery, systemIdentifier, tickPeriod, lastTickStart, lastTickDuration, ticks, skippedTicks, metrics,
                privilegeWarning, stretchedTicks, stretchReason, instance, noticeWarning, undeliveredMetrics);
    }
}
