package io.pgharvest.source;

import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.SourceKind;
import io.pgharvest.model.SourceRuntimeStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One line of the fleet status ({@code GET /api/v1/status}): what an operator scans a fleet for,
 * a summary of {@link SourceStatus} that stays small enough for a thousand sources per answer.
 *
 * @param state the status API's word: configured, disabled, starting, connected, disconnected, stalled, failed
 * @param lastTickStart when the last tick started; null before the first
 * @param lastTickDuration how long the last tick took; null before the first
 * @param soloMetrics metrics isolated in the solo lane after failures, by name
 * @param lastError the newest error of the source: its connection or one of its metrics; null if none
 * @param lastErrorAt when {@code lastError} happened
 * @param owner the instance that collects the source when several share the fleet; null with one instance
 * @param modifyIndex the store index of the source's last configuration change: what the console's
 *     inline on/off sends as {@code cas}, so a toggle never overwrites an edit it has not seen
 */
public record FleetEntry(
        String name,
        SourceKind kind,
        String group,
        boolean enabled,
        SourceStatus.State state,
        Instant lastTickStart,
        Duration lastTickDuration,
        int metrics,
        List<String> soloMetrics,
        String lastError,
        Instant lastErrorAt,
        String owner,
        long modifyIndex) {

    public FleetEntry {
        soloMetrics = List.copyOf(soloMetrics);
    }

    /**
     * Whether {@code other} says the same as this entry but for when the last tick started, how long
     * it took and when the same last error happened again: what changes on every tick of a healthy
     * source and on every retry of a failing one, sent as a {@link FleetTick}.
     */
    boolean sameBesidesTick(FleetEntry other) {
        return equals(new FleetEntry(other.name, other.kind, other.group, other.enabled, other.state, lastTickStart,
                lastTickDuration, other.metrics, other.soloMetrics, other.lastError, lastErrorAt, other.owner,
                other.modifyIndex));
    }

    static FleetEntry of(SourceStatus status) {
        SourceRuntimeStatus runtime = status.runtime();
        String owner = status.owner() == null ? null : status.owner().instance();
        if (runtime == null) {
            String ownerError = status.owner() == null ? null : status.owner().lastError();
            Instant ownerTick = status.owner() == null ? null : status.owner().lastTickAt();
            String discoveryError = status.discovery() == null ? null : status.discovery().lastError();
            Instant discoveryErrorAt = status.discovery() == null ? null : status.discovery().lastErrorAt();
            return new FleetEntry(status.name(), status.kind(), status.group(), status.enabled(), status.state(),
                    ownerTick, null, status.metrics().size(), List.of(),
                    discoveryError != null ? discoveryError : ownerError, discoveryErrorAt, owner, status.modifyIndex());
        }
        String lastError = runtime.lastConnectionError();
        Instant lastErrorAt = runtime.lastConnectionErrorAt();
        // While the source is unreachable its metrics fail because the connection did: the
        // connection's error is the one to read, not the last metric that happened to hit it.
        boolean unreachable = lastError != null && status.state() != SourceStatus.State.CONNECTED;
        for (MetricRuntimeStatus metric : unreachable ? List.<MetricRuntimeStatus>of() : runtime.metrics()) {
            if (metric.lastErrorAt() != null && (lastErrorAt == null || metric.lastErrorAt().isAfter(lastErrorAt))) {
                lastError = metric.name() + ": " + metric.lastError();
                lastErrorAt = metric.lastErrorAt();
            }
        }
        List<String> solo = runtime.metrics().stream()
                .filter(metric -> metric.lane() == MetricLane.SOLO).map(MetricRuntimeStatus::name).toList();
        return new FleetEntry(status.name(), status.kind(), status.group(), status.enabled(), status.state(),
                runtime.lastTickStart(), runtime.lastTickDuration(), runtime.metrics().size(), solo, lastError,
                lastErrorAt, owner, status.modifyIndex());
    }
}
