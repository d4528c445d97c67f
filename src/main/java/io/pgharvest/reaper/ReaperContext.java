package io.pgharvest.reaper;

import io.pgharvest.kind.EndpointRegistry;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.reaper.instance.InstanceRegistry;
import io.pgharvest.reaper.tick.ReaperMeters;
import io.pgharvest.support.Backoff;
import io.pgharvest.reaper.schedule.IdleSessionWatch;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;

/**
 * What every reaper shares: where measurements go, the meters, the instances (with their shared results), the
 * endpoints that open sessions for each kind of source, timing policy, and where status changes are reported. One instance per
 * reaper service.
 *
 * @param defaultStatementTimeout the time limit of a metric without one of its own
 * @param maxExtraRoundTrips round trips a source may add to a tick beyond its healthy pipeline
 * @param maxStretch cap of the delay by which a slow server's schedule is stretched
 * @param natives the implementations of native metrics
 * @param idleSessions looks, between ticks, whether a server ended its reaper's session
 *     ({@link io.pgharvest.kind.SourceSession#anythingArrived}); null: never (tests that count a
 *     reaper's sleeps)
 */
record ReaperContext(
        MeasurementPublisher publisher,
        ReaperMeters meters,
        InstanceRegistry instances,
        EndpointRegistry endpoints,
        Duration defaultStatementTimeout,
        Duration minTickPeriod,
        Backoff reconnectBackoff,
        Duration soloMaxBackoff,
        Duration factsRefreshInterval,
        ThreadFactory threadFactory,
        Consumer<SourceRuntimeStatus> statusListener,
        int maxExtraRoundTrips,
        Duration maxStretch,
        NativeMetricRegistry natives,
        IdleSessionWatch idleSessions) {
}
