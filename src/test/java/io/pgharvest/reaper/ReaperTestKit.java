package io.pgharvest.reaper;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.reaper.schedule.IdleSessionWatch;
import io.pgharvest.reaper.schedule.TickTimer;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.kind.TestEndpoints;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.NodeStatus;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.model.StoreTable;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.reaper.instance.InstanceRegistry;
import io.pgharvest.reaper.tick.CollectionPlan;
import io.pgharvest.reaper.tick.ReaperMeters;
import io.pgharvest.support.Backoff;
import io.pgharvest.testsupport.RecordingPublisher;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Builds reapers for tests with a recording publisher and short back-offs. */
final class ReaperTestKit {

    final RecordingPublisher publisher = new RecordingPublisher();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final ReaperContext context;

    ReaperTestKit() {
        this(Duration.ofMillis(200), Duration.ofSeconds(1));
    }

    ReaperTestKit(Duration reconnectMin, Duration reconnectMax) {
        this(reconnectMin, reconnectMax, DEFAULT_EXTRA_ROUND_TRIPS);
    }

    /** The engine's default allowance of extra round trips per tick (pgharvest.reaper.max-extra-round-trips). */
    static final int DEFAULT_EXTRA_ROUND_TRIPS = 2;

    /** A kit whose sources may add up to {@code maxExtraRoundTrips} round trips to a tick. */
    ReaperTestKit(int maxExtraRoundTrips) {
        this(Duration.ofMillis(200), Duration.ofSeconds(1), maxExtraRoundTrips);
    }

    ReaperTestKit(Duration reconnectMin, Duration reconnectMax, int maxExtraRoundTrips) {
        this(reconnectMin, reconnectMax, maxExtraRoundTrips, NativeMetricRegistry.none());
    }

    /** A kit whose reapers run native metrics with {@code natives}. */
    ReaperTestKit(NativeMetricRegistry natives) {
        this(Duration.ofMillis(200), Duration.ofSeconds(1), DEFAULT_EXTRA_ROUND_TRIPS, natives);
    }

    ReaperTestKit(Duration reconnectMin, Duration reconnectMax, int maxExtraRoundTrips, NativeMetricRegistry natives) {
        this(reconnectMin, reconnectMax, maxExtraRoundTrips, natives, sessions(), null);
    }

    /** A kit whose reapers open their sessions with {@code sessions} (e.g. settings that refuse superusers). */
    ReaperTestKit(SessionOpener sessions) {
        this(Duration.ofMillis(200), Duration.ofSeconds(1), DEFAULT_EXTRA_ROUND_TRIPS, NativeMetricRegistry.none(),
                sessions, null);
    }

    /**
     * A kit whose reapers' idle sessions are looked at every {@code idleSessionCheck} of
     * {@code timer}'s time between ticks (as in production); the other kits leave it off so that a
     * reaper sleeps exactly until its next tick.
     */
    ReaperTestKit(SessionOpener sessions, Duration idleSessionCheck, TickTimer timer) {
        this(Duration.ofMillis(200), Duration.ofSeconds(1), DEFAULT_EXTRA_ROUND_TRIPS, NativeMetricRegistry.none(),
                sessions, new IdleSessionWatch(idleSessionCheck, timer));
    }

    private ReaperTestKit(Duration reconnectMin, Duration reconnectMax, int maxExtraRoundTrips,
            NativeMetricRegistry natives, SessionOpener sessions, IdleSessionWatch idleSessions) {
        context = new ReaperContext(publisher, new ReaperMeters(registry), new InstanceRegistry(),
                TestEndpoints.of(sessions), sessions.settings().defaultStatementTimeout(),
                Duration.ofSeconds(1), new Backoff(reconnectMin, reconnectMax), Duration.ofSeconds(30),
                Duration.ofMinutes(5), Thread.ofVirtual().name("test-reaper-", 0).factory(), status -> { },
                maxExtraRoundTrips, Duration.ofMinutes(2), natives, idleSessions);
    }

    static MetricDefinition metric(String name, String sql) {
        return new MetricDefinition(name, "test metric " + name, Map.of(10, sql), List.of("*"), false,
                NodeStatus.ANY, null, null, null);
    }

    static MetricDefinition metricWithTimeout(String name, String sql, int timeoutSeconds) {
        return new MetricDefinition(name, "test metric " + name, Map.of(10, sql), List.of("*"), false,
                NodeStatus.ANY, null, null, timeoutSeconds);
    }

    static Source source(String name, String connStr, Map<String, Integer> metrics) {
        return new Source(name, connStr, null, null, true, null, metrics, null, null, Map.of("env", "test"),
                false, null, null);
    }

    /** A configuration snapshot holding {@code metrics} and {@code source}. */
    static CollectionPlan config(Source source, List<MetricDefinition> metrics) {
        var byName = new HashMap<String, MetricDefinition>();
        metrics.forEach(m -> byName.put(m.name(), m));
        var snapshot = new ConfigSnapshot(1, Map.of(source.name(), source), byName, Map.of(),
                Map.of(StoreTable.SOURCES, Map.of()));
        return CollectionPlan.of(source, snapshot);
    }

    /** The session opener of the engine's tests: 2 s connect, 5 s statements, 1 s locks. */
    static SessionOpener sessions() {
        return new SessionOpener(new SessionSettings(Duration.ofSeconds(2), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1)));
    }

    /**
     * Starts {@code reaper}, lets it run its first tick on {@code timer} (until it asks to sleep
     * after it) and stops it, also when the tick throws; returns its status as that tick left it.
     */
    static SourceRuntimeStatus runFirstTick(SourceReaper reaper, ManualTickTimer timer) throws InterruptedException {
        reaper.start();
        try {
            timer.advanceTo(timer.awaitSleepRequests(1));
            timer.awaitSleepRequests(2);
            return reaper.status();
        } finally {
            reaper.stop();
            assertThat(reaper.awaitStop(Duration.ofSeconds(30))).isTrue();
        }
    }
}
