package io.pgharvest.reaper;

import io.pgharvest.kind.ServerFacts;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.reaper.instance.Instance;
import io.pgharvest.reaper.isolation.SoloLane;
import io.pgharvest.reaper.schedule.ScheduleStretch;
import io.pgharvest.reaper.schedule.TickSchedule;
import io.pgharvest.reaper.tick.MetricLedger;
import io.pgharvest.reaper.tick.NativeLane;
import io.pgharvest.reaper.tick.CollectionPlan;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reaper's status: its tick counters, and the {@link SourceRuntimeStatus} built from the
 * reaper's parts (session, schedule, lanes, ledger, stretch) after every change, published to
 * {@link #current()} readers and to the service's listener.
 *
 * <p>Threading: counted, built and published on the reaper's thread; {@link #current()} is read
 * from any thread and sees only immutable values (two volatile fields).
 */
final class ReaperStatus {

    private static final Logger log = LoggerFactory.getLogger(ReaperStatus.class);

    private final String name;
    private final ReaperContext context;
    private final SessionKeeper keeper;
    private final ScheduleStretch stretch;
    private final SoloLane solo;
    private final NativeLane natives;
    private final MetricLedger ledger;
    private volatile SourceRuntimeStatus published;
    /** System.nanoTime() when the running tick began; 0 between ticks. */
    private volatile long tickStartedNanos;
    private long ticks;
    private long skippedTicks;
    private Instant lastTickStart;
    private Duration lastTickDuration;
    /** The first tick of the current connection; null while not connected. */
    private Instant connectedSince;
    /** How many collected metrics are undelivered now: the source's gauge reads it. */
    private final AtomicInteger undeliveredCount = new AtomicInteger();
    private Map<String, Integer> sortedSelectionOf;
    private List<Map.Entry<String, Integer>> sortedSelection = List.of();
    private ShareInputs shareInputs;
    private SourceRuntimeStatus.InstanceShare share;

    ReaperStatus(String name, ReaperContext context, SessionKeeper keeper, ScheduleStretch stretch, SoloLane solo,
            NativeLane natives, MetricLedger ledger) {
        this.name = name;
        this.context = context;
        this.keeper = keeper;
        this.stretch = stretch;
        this.solo = solo;
        this.natives = natives;
        this.ledger = ledger;
        this.published = SourceRuntimeStatus.builder(name, SessionState.STARTING).build();
    }

    /** How many collected metrics delivered nothing lately ({@link SourceRuntimeStatus#undeliveredMetrics}). */
    int undeliveredCount() {
        return undeliveredCount.get();
    }

    /** A tick begins ({@code skippedPoints}: grid points it passed over). */
    void tickStarted(long startNanos, long skippedPoints) {
        tickStartedNanos = startNanos;
        ticks++;
        skippedTicks += skippedPoints;
    }

    /** Grid points passed over without a tick (a stretched schedule). */
    void skipped(long points) {
        skippedTicks += points;
    }

    void tickEnded(Instant start, Duration took) {
        tickStartedNanos = 0;
        lastTickStart = start;
        lastTickDuration = took;
        if (!keeper.connected()) {
            connectedSince = null;
        } else if (connectedSince == null) {
            connectedSince = start;
        }
    }

    /**
     * The last published status; while a tick has waited for the server longer than a tick
     * period (and the default statement timeout, which the server enforces itself), it shows
     * {@link SessionState#STALLED}: the reaper thread is blocked then and publishes nothing.
     */
    SourceRuntimeStatus current() {
        SourceRuntimeStatus status = published;
        long started = tickStartedNanos;
        Duration period = status.tickPeriod();
        if (started == 0 || period == null || status.state() != SessionState.CONNECTED) {
            return status;
        }
        Duration waiting = Duration.ofNanos(System.nanoTime() - started);
        Duration statementLimit = context.defaultStatementTimeout();
        Duration limit = period.compareTo(statementLimit) > 0 ? period : statementLimit;
        if (waiting.compareTo(limit) <= 0) {
            return status;
        }
        return status.withState(SessionState.STALLED, "no answer from the server for " + waiting.toSeconds()
                + " s (tick period " + period.toSeconds() + " s)", status.lastTickStart());
    }

    /**
     * Builds and publishes the status; an observer's failure is logged, never thrown.
     *
     * @param forcedState the state to show instead of the session's (FAILED, STOPPED), or null
     * @param loopFailure the error shown with {@link SessionState#FAILED}
     * @param config the configuration in force; null before the first one was applied
     * @param inactive selected metrics not collected now, with the reason
     */
    void publish(SessionState forcedState, String loopFailure, CollectionPlan config, TickSchedule schedule,
            Map<String, MetricLane> inactive) {
        try {
            SourceRuntimeStatus next = build(forcedState, loopFailure, config, schedule, inactive);
            published = next;
            context.statusListener().accept(next);
        } catch (RuntimeException e) {
            log.warn("Source {}: could not publish status", name, e);
        }
    }

    private SourceRuntimeStatus build(SessionState forcedState, String loopFailure, CollectionPlan config,
            TickSchedule schedule, Map<String, MetricLane> inactive) {
        ServerFacts facts = keeper.facts();
        SessionState state = forcedState != null ? forcedState
                : keeper.connected() ? SessionState.CONNECTED
                : keeper.refused() ? SessionState.REFUSED
                : keeper.connectFailures() > 0 ? SessionState.DISCONNECTED : SessionState.STARTING;
        List<MetricRuntimeStatus> metricStatuses = config == null ? List.of() : metrics(config, schedule, inactive, facts);
        var status = SourceRuntimeStatus.builder(name, state)
                .connected(keeper.connected())
                .connectionError(state == SessionState.FAILED ? loopFailure : keeper.lastConnectionError(),
                        keeper.lastConnectionErrorAt())
                .tickPeriod(schedule.isEmpty() ? null : schedule.period())
                .lastTick(lastTickStart, lastTickDuration)
                .ticks(ticks, skippedTicks)
                .metrics(metricStatuses)
                .undeliveredMetrics(state == SessionState.CONNECTED ? undelivered(metricStatuses) : List.of())
                .privilegeWarning(keeper.privilegeWarning())
                .noticeWarning(keeper.noticeWarning())
                .stretch(stretch.stretchedTicks(), stretch.reason());
        if (facts != null) {
            status.server(facts.displayVersion(), facts.versionNum() == 0 ? null : facts.versionNum(),
                    facts.inRecovery(), facts.systemIdentifier())
                    .instance(instanceShare(config, schedule, facts));
        }
        return status.build();
    }

    /**
     * The collected metrics that delivered nothing for {@link SourceRuntimeStatus#UNDELIVERED_AFTER_INTERVALS}
     * of their intervals, counted from their last success, or from the first tick while connected
     * for one that never succeeded; judged at the last tick's start. Also the source's meter.
     */
    private List<String> undelivered(List<MetricRuntimeStatus> metrics) {
        var names = new ArrayList<String>();
        if (connectedSince != null && lastTickStart != null) {
            for (MetricRuntimeStatus metric : metrics) {
                if (metric.lane() != MetricLane.PIPELINE && metric.lane() != MetricLane.SOLO) {
                    continue;
                }
                Instant since = metric.lastSuccess() != null && metric.lastSuccess().isAfter(connectedSince)
                        ? metric.lastSuccess() : connectedSince;
                long allowedMillis = SourceRuntimeStatus.UNDELIVERED_AFTER_INTERVALS * 1000L * metric.intervalSeconds();
                if (lastTickStart.toEpochMilli() - since.toEpochMilli() >= allowedMillis) {
                    names.add(metric.name());
                }
            }
        }
        undeliveredCount.set(names.size());
        return names;
    }

    private List<MetricRuntimeStatus> metrics(CollectionPlan config, TickSchedule schedule,
            Map<String, MetricLane> inactive, ServerFacts facts) {
        var metrics = new ArrayList<MetricRuntimeStatus>();
        Map<String, Duration> intervals = schedule.intervals();
        for (var entry : sortedSelection(config.selection(facts != null && facts.inRecovery()))) {
            String metric = entry.getKey();
            MetricDefinition definition = config.definitions().get(metric);
            MetricLane running = definition != null && definition.isNative() ? natives.lane(metric)
                    : solo.contains(metric) ? MetricLane.SOLO : MetricLane.PIPELINE;
            MetricLane lane = inactive.getOrDefault(metric, running);
            metrics.add(new MetricRuntimeStatus(metric, entry.getValue(), lane, ledger.lastSuccess(metric),
                    ledger.lastError(metric), ledger.lastErrorAt(metric),
                    intervals.containsKey(metric) ? schedule.nextDue(metric) : null));
        }
        return metrics;
    }

    /**
     * Where the source sits on its instance; null on an instance that shares nothing. Built again
     * only when what it is derived from changes (configuration, schedule, instance, membership,
     * server version), not on every tick: at 300 sources, building it every tick was 2-3 % of the
     * collector's CPU.
     */
    private SourceRuntimeStatus.InstanceShare instanceShare(CollectionPlan config, TickSchedule schedule,
            ServerFacts facts) {
        Instance current = keeper.instance();
        if (!current.shared()) {
            return null;
        }
        var inputs = new ShareInputs(config, schedule.intervals(), current, current.membership(), facts.majorVersion());
        if (!inputs.sameAs(shareInputs)) {
            share = buildInstanceShare(config, schedule, facts, current);
            shareInputs = inputs;
        }
        return share;
    }

    private static SourceRuntimeStatus.InstanceShare buildInstanceShare(CollectionPlan config, TickSchedule schedule,
            ServerFacts facts, Instance current) {
        var fannedOut = new ArrayList<String>();
        for (String metric : schedule.intervals().keySet()) {
            MetricDefinition definition = config.definitions().get(metric);
            if (definition != null && current.fansOut(metric)
                    && definition.instanceSqlFor(facts.majorVersion()).isPresent()) {
                fannedOut.add(metric);
            }
        }
        fannedOut.sort(null);
        return new SourceRuntimeStatus.InstanceShare(current.key(), current.memberCount(), fannedOut);
    }

    /** What an instance share is built from, compared by identity: each part is replaced, never changed. */
    private record ShareInputs(CollectionPlan config, Map<String, Duration> intervals, Instance instance,
            Object membership, int majorVersion) {

        boolean sameAs(ShareInputs other) {
            return other != null && config == other.config && intervals == other.intervals
                    && instance == other.instance && membership == other.membership
                    && majorVersion == other.majorVersion;
        }
    }

    /** The selection in name order; sorted again only when the selection itself changes, not every tick. */
    private List<Map.Entry<String, Integer>> sortedSelection(Map<String, Integer> selection) {
        if (selection != sortedSelectionOf) {
            sortedSelection = List.copyOf(new TreeMap<>(selection).entrySet());
            sortedSelectionOf = selection;
        }
        return sortedSelection;
    }
}
