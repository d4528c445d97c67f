package io.pgharvest.reaper;

import io.pgharvest.endpoint.SessionOpener;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.support.Backoff;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;

/**
 * What every reaper shares: where measurements go, the meters, the instances (with their shared results), how
 * sessions are opened, timing policy, and where status changes are reported. One instance per
 * reaper service.
 *
 * @param maxExtraRoundTrips round trips a source may add to a tick beyond its healthy pipeline
 * @param maxStretch cap of the delay by which a slow server's schedule is stretched
 * @param natives the implementations of native metrics
 */
record ReaperContext(
        MeasurementPublisher publisher,
        ReaperMeters meters,
        InstanceRegistry instances,
        SessionOpener sessions,
        Duration minTickPeriod,
        Backoff reconnectBackoff,
        Duration soloMaxBackoff,
        Duration factsRefreshInterval,
        ThreadFactory threadFactory,
        Consumer<SourceRuntimeStatus> statusListener,
        int maxExtraRoundTrips,
        Duration maxStretch,
        NativeMetricRegistry natives) {
}
