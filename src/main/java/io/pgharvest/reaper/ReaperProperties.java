package io.pgharvest.reaper;

import io.pgharvest.kind.ResultLimits;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Tuning of the collection engine ({@code pgharvest.reaper.*}). The defaults suit a fleet of
 * ordinary servers; change them only with a reason.
 *
 * @param minTickPeriod floor of a source's tick period (the GCD of its metric intervals)
 * @param defaultStatementTimeout server-side time limit of a metric without its own
 *     {@code statementTimeoutSeconds}; a metric that exceeds it is isolated like a failing one
 * @param lockTimeout {@code lock_timeout} of monitoring sessions, so that a metric never queues
 *     behind DDL
 * @param socketTimeout client-side safety net for a session whose server stopped answering
 *     (network partition); must exceed the longest statement timeout
 * @param reconnectBackoffMin first delay before reconnecting to an unreachable source
 * @param reconnectBackoffMax cap of the reconnect delay, which doubles after each failure
 * @param soloBackoffMax cap of the retry delay of an isolated (failing) metric
 * @param factsRefreshInterval how often version and recovery state are re-read (they are also
 *     re-read after every reconnect)
 * @param shutdownTimeout how long stopping waits for running ticks before abandoning them
 * @param maxExtraRoundTrips round trips a source may add to one tick beyond its pipeline of
 *     healthy metrics, to narrow down a failed pipeline and retry failing metrics (1 to 1000;
 *     with none a failed pipeline could never be narrowed down)
 * @param maxStretch cap of the delay by which a source's schedule is stretched while its server
 *     is slow (ticks skipped after a tick that timed out without any answer or overran its
 *     period; the delay doubles per slow tick, from one tick period)
 * @param refusePrivilegedSources refuse to collect from a source whose role is a superuser or
 *     can write to a table (shown as a connection error); when off, such a source is collected
 *     and flagged in its status and health
 * @param maxResultRows rows one metric may return on one tick (1 to 10,000,000); a metric that
 *     returns more fails alone with an error naming this property, and the server stops sending
 *     its rows at the limit
 * @param maxResultBytes bytes of rows one metric's result may hold as the server sends them (1KB
 *     to 1GB, default 64MB); past it the rest of that result's rows are read and dropped before
 *     they are allocated, and the metric fails alone with an error naming this property while the
 *     session and the other metrics of its round trip carry on
 */
@Validated
@ConfigurationProperties("pgharvest.reaper")
public record ReaperProperties(
        @NotNull @DefaultValue("1s") Duration minTickPeriod,
        @NotNull @DefaultValue("5s") Duration defaultStatementTimeout,
        @NotNull @DefaultValue("2s") Duration lockTimeout,
        @NotNull @DefaultValue("5m") Duration socketTimeout,
        @NotNull @DefaultValue("1s") Duration reconnectBackoffMin,
        @NotNull @DefaultValue("1m") Duration reconnectBackoffMax,
        @NotNull @DefaultValue("5m") Duration soloBackoffMax,
        @NotNull @DefaultValue("5m") Duration factsRefreshInterval,
        @NotNull @DefaultValue("10s") Duration shutdownTimeout,
        @DefaultValue("false") boolean refusePrivilegedSources,
        @DefaultValue("2") int maxExtraRoundTrips,
        @NotNull @DefaultValue("2m") Duration maxStretch,
        @DefaultValue("100000") int maxResultRows,
        @NotNull @DefaultValue("64MB") DataSize maxResultBytes) {

    @ConstructorBinding
    public ReaperProperties {
        requirePositive("pgharvest.reaper.min-tick-period", minTickPeriod);
        requirePositive("pgharvest.reaper.default-statement-timeout", defaultStatementTimeout);
        requirePositive("pgharvest.reaper.lock-timeout", lockTimeout);
        requirePositive("pgharvest.reaper.socket-timeout", socketTimeout);
        requirePositive("pgharvest.reaper.reconnect-backoff-min", reconnectBackoffMin);
        requirePositive("pgharvest.reaper.reconnect-backoff-max", reconnectBackoffMax);
        requirePositive("pgharvest.reaper.solo-backoff-max", soloBackoffMax);
        requirePositive("pgharvest.reaper.facts-refresh-interval", factsRefreshInterval);
        requirePositive("pgharvest.reaper.shutdown-timeout", shutdownTimeout);
        requirePositive("pgharvest.reaper.max-stretch", maxStretch);
        if (maxExtraRoundTrips < 1 || maxExtraRoundTrips > 1000) {
            throw new IllegalArgumentException("pgharvest.reaper.max-extra-round-trips must be between 1 and 1000, got "
                    + maxExtraRoundTrips);
        }
        if (maxResultRows < 1 || maxResultRows > 10_000_000) {
            throw new IllegalArgumentException("pgharvest.reaper.max-result-rows must be between 1 and 10000000, got "
                    + maxResultRows);
        }
        if (maxResultBytes != null && (maxResultBytes.compareTo(MIN_RESULT_BYTES) < 0
                || maxResultBytes.compareTo(MAX_RESULT_BYTES) > 0)) {
            throw new IllegalArgumentException("pgharvest.reaper.max-result-bytes must be between 1KB and 1GB, got "
                    + maxResultBytes.toBytes() + " bytes");
        }
        if (socketTimeout != null && defaultStatementTimeout != null
                && socketTimeout.compareTo(defaultStatementTimeout) <= 0) {
            throw new IllegalArgumentException("pgharvest.reaper.socket-timeout (" + socketTimeout
                    + ") must be longer than pgharvest.reaper.default-statement-timeout (" + defaultStatementTimeout + ")");
        }
    }

    private static final DataSize MIN_RESULT_BYTES = DataSize.ofKilobytes(1);
    private static final DataSize MAX_RESULT_BYTES = DataSize.ofGigabytes(1);

    /** The engine's settings with the default result limits (100,000 rows and 64 MB per metric). */
    public ReaperProperties(Duration minTickPeriod, Duration defaultStatementTimeout, Duration lockTimeout,
            Duration socketTimeout, Duration reconnectBackoffMin, Duration reconnectBackoffMax, Duration soloBackoffMax,
            Duration factsRefreshInterval, Duration shutdownTimeout, boolean refusePrivilegedSources,
            int maxExtraRoundTrips, Duration maxStretch) {
        this(minTickPeriod, defaultStatementTimeout, lockTimeout, socketTimeout, reconnectBackoffMin, reconnectBackoffMax,
                soloBackoffMax, factsRefreshInterval, shutdownTimeout, refusePrivilegedSources, maxExtraRoundTrips,
                maxStretch, ResultLimits.DEFAULT.maxRows(), DataSize.ofBytes(ResultLimits.DEFAULT.maxBytes()));
    }

    /** The result limits as the sessions take them. */
    public ResultLimits resultLimits() {
        return new ResultLimits(maxResultRows, maxResultBytes.toBytes());
    }

    private static void requirePositive(String property, Duration value) {
        if (value != null && (value.isZero() || value.isNegative())) {
            throw new IllegalArgumentException(property + " must be positive, got " + value);
        }
    }
}
