package io.pgharvest.reaper;

import io.pgharvest.kind.ServerFacts;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.QueryTextRedaction;
import io.pgharvest.model.SettingRedaction;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.Source;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.reaper.isolation.SoloLane;
import io.pgharvest.reaper.schedule.IdleSessionWatch;
import io.pgharvest.reaper.schedule.ScheduleStretch;
import io.pgharvest.reaper.schedule.TickSchedule;
import io.pgharvest.reaper.schedule.TickTimer;
import io.pgharvest.reaper.schedule.WakeSignal;
import io.pgharvest.reaper.tick.MetricLedger;
import io.pgharvest.reaper.tick.NativeLane;
import io.pgharvest.reaper.tick.CollectionPlan;
import io.pgharvest.reaper.tick.ReaperMeters;
import io.pgharvest.reaper.tick.SourceDownException;
import io.pgharvest.reaper.tick.TickRunner;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CompletableFuture;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects one source: one virtual thread that sleeps until the next grid point at which a metric
 * is due, sends every due metric in one round trip, hands the measurements to the sinks without
 * waiting for them, and goes back to sleep. This class is the schedule loop and its supervisor;
 * its parts each do one job: {@link SessionKeeper} (the session, reconnect back-off, server facts,
 * instance membership), {@link ScheduleStretch} (backing off a slow server), {@link TickRunner}
 * (one tick's round trips), {@link NativeLane} (native metrics), {@link ReaperStatus} (counters
 * and the published status).
 *
 * <p>Threading: all fields without {@code volatile}, and the parts above, are owned by the reaper
 * thread. Other threads talk to it only through {@link #reconfigure} (a new immutable
 * {@link CollectionPlan} plus one wake-up), {@link #recheckServerFactsUntil}, {@link #stop()} and
 * {@link #status()} (an immutable snapshot).
 *
 * <p>Lifecycle: {@link #start()} once, {@link #stop()} (non-blocking) then
 * {@link #awaitStop(Duration)}, which interrupts a tick that does not finish in time; the
 * session is closed in {@code finally} whatever happens.
 */
final class SourceReaper {

    private static final Logger log = LoggerFactory.getLogger(SourceReaper.class);

    /** Schedule key of the reachability heartbeat; '@' cannot start a metric name. */
    static final String INSTANCE_UP = "@instance_up";
    static final String INSTANCE_UP_METRIC = "instance_up";
    private static final Duration IDLE_SLEEP = Duration.ofHours(1);
    private static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(60);
    /** The longest a reaper's first login waits for its server's early first ticks ({@link #logInAfter}). */
    static final Duration LOGIN_HOLD_LIMIT = Duration.ofSeconds(5);

    private final String name;
    private final ReaperContext context;
    private final TickTimer timer;
    private final WakeSignal wake = new WakeSignal();
    private final AtomicBoolean started = new AtomicBoolean();
    private final ReaperMeters.SourceMeters sourceMeters;
    private volatile CollectionPlan pendingConfig;
    private volatile boolean stopRequested;
    private volatile Thread thread;
    /**
     * Used at the first plan: the previous owner's last tick of a source taken over from another
     * instance, or {@link Instant#EPOCH} from {@link #collectAtOnce}.
     */
    private volatile Instant previousOwnerTick;
    /** Set by {@link #collectAtOnce} until the first tick is over. */
    private volatile Runnable afterFirstTick;
    /** Set by {@link #logInAfter}: the first login waits for it (at most {@link #LOGIN_HOLD_LIMIT}). */
    private volatile CompletableFuture<Void> loginGate;
    /** Set while the supervisor waits to restart a failed loop. */
    private volatile String loopFailure;

    // Owned by the reaper thread.
    private CollectionPlan config;
    /** When the first plan was made (a tick is never late from before it); null before. */
    private Instant firstPlanned;
    private TickSchedule schedule = TickSchedule.empty();
    private final SessionKeeper keeper;
    private final ScheduleStretch stretch;
    private final SoloLane solo;
    private final MetricLedger ledger;
    private final NativeLane natives;
    private final ReaperStatus status;
    /** What the tick's native metrics delivered, published with the rest of the tick. */
    private final List<Measurement> nativeMeasurements = new ArrayList<>();
    private final Map<String, MetricLane> inactiveMetrics = new LinkedHashMap<>();
    /** Why the tick in progress found the server slow, or null. */
    private String slowReason;
    /** The runner of the tick in progress, so that its measurements survive any exception. */
    private TickRunner lastRunner;

    SourceReaper(CollectionPlan config, ReaperContext context, TickTimer timer) {
        this.name = config.name();
        this.context = context;
        this.timer = timer;
        this.pendingConfig = config;
        this.ledger = new MetricLedger(name);
        this.natives = new NativeLane(name, context.natives());
        this.solo = new SoloLane(context.soloMaxBackoff());
        this.sourceMeters = context.meters().forSource(name);
        this.keeper = new SessionKeeper(name, context, this::replan);
        this.stretch = new ScheduleStretch(name, context.maxStretch());
        this.status = new ReaperStatus(name, context, keeper, stretch, solo, natives, ledger);
        sourceMeters.undelivered(status::undeliveredCount);
    }

    String name() {
        return name;
    }

    /** Before {@link #start}: the source's previous owner (another instance) last ticked at {@code lastTick}. */
    void resumeAfter(Instant lastTick) {
        previousOwnerTick = lastTick;
    }

    /**
     * Before {@link #start}: the grid point that passed last runs as soon as the session is open,
     * instead of the first tick waiting up to a period for the next one; {@code afterFirstTick}
     * runs once that tick is over (or the reaper stops before it).
     */
    void collectAtOnce(Runnable afterFirstTick) {
        previousOwnerTick = Instant.EPOCH;
        this.afterFirstTick = afterFirstTick;
    }

    /**
     * Before {@link #start}: the first login waits until {@code gate} is done (the early first
     * ticks of the server, {@link io.pgharvest.reaper.schedule.EarlyStarts#settled}), at most {@link #LOGIN_HOLD_LIMIT}. This
     * reaper's first grid point is ahead anyway; its status shows STARTING meanwhile.
     */
    void logInAfter(CompletableFuture<Void> gate) {
        this.loginGate = gate;
        gate.thenRun(wake::raise);
    }

    void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("reaper of source " + name + " was already started");
        }
        Thread t = context.threadFactory().newThread(this::runLoop);
        t.setName("reaper-" + name);
        thread = t;
        t.start();
    }

    /** Hands over a new configuration; the reaper re-plans at once, keeping due times. */
    void reconfigure(CollectionPlan next) {
        pendingConfig = next;
        wake.raise();
    }

    /**
     * Asks the reaper to re-read the server's version and recovery state before every tick until
     * {@code until} (one extra round trip per tick), e.g. while discovery sees the roles in the
     * server's cluster change, so that a promotion or demotion is followed within one tick of
     * happening; does not wait.
     */
    void recheckServerFactsUntil(Instant until) {
        keeper.recheckFactsUntil(until);
    }

    /** Asks the reaper to stop after its current tick; does not wait. */
    void stop() {
        stopRequested = true;
        wake.raise();
    }

    /**
     * Waits for the reaper to stop; a tick still running after {@code timeout} is abandoned
     * (the thread is interrupted, which closes its socket).
     *
     * @return true when the thread has ended
     */
    boolean awaitStop(Duration timeout) throws InterruptedException {
        Thread t = thread;
        if (t == null) {
            return true;
        }
        if (!t.join(timeout)) {
            t.interrupt();
            return t.join(Duration.ofSeconds(2));
        }
        return true;
    }

    /** The last published status, {@link SessionState#STALLED} while a tick waits too long ({@link ReaperStatus#current}). */
    SourceRuntimeStatus status() {
        return status.current();
    }

    /**
     * The reaper's supervisor: a loop that fails unexpectedly (also while starting: reading the
     * configuration, connecting) is reported as {@link SessionState#FAILED} with its error,
     * counted, and started again after a capped back-off; it never ends unseen.
     */
    private void runLoop() {
        int failures = 0;
        try {
            while (!stopRequested) {
                try {
                    // Connect at once rather than at the first grid point, which may be up to one
                    // period away: an operator who adds a source learns within seconds whether it works
                    // (at most LOGIN_HOLD_LIMIT later while the server's early first ticks run).
                    applyPendingConfig();
                    awaitLoginGate();
                    if (!keeper.ensure(config, timer.now())) {
                        // Unreachable: this early start would hold back the other sources' logins.
                        firstTickOver();
                    }
                    publishStatus(null);
                    while (!stopRequested) {
                        runOnce();
                        failures = 0;
                    }
                } catch (RuntimeException | Error e) {
                    failures++;
                    Duration delay = context.reconnectBackoff().after(failures);
                    context.meters().reaperRestarted();
                    loopFailure = "reaper failed, restarting in " + delay.toMillis() + " ms: " + e;
                    log.error("Source {}: reaper loop failed, restarting it in {}", name, delay, e);
                    keeper.close();
                    publishStatus(SessionState.FAILED);
                    timer.sleepUntil(timer.now().plus(delay), wake);
                    loopFailure = null;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            firstTickOver();
            keeper.close();
            context.meters().release(sourceMeters);
            publishStatus(SessionState.STOPPED);
        }
    }

    /** One turn of the loop: re-plan if told to, then sleep until something is due or run it. */
    private void runOnce() throws InterruptedException {
        applyPendingConfig();
        Instant now = timer.now();
        Instant next = schedule.nextWake();
        if (next == null || now.isBefore(next)) {
            sleepWatched(next == null ? now.plus(IDLE_SLEEP) : next);
            return;
        }
        TickSchedule.DueTick due = schedule.takeDue(now);
        if (due.isEmpty()) {
            return;
        }
        if (stretch.skips(due.scheduledAt())) {
            skipStretched(due, now);
        } else {
            tick(due, now);
        }
    }

    /**
     * Sleeps until {@code until} or a wake-up. Meanwhile the idle-session watch looks at the open
     * session ({@link ReaperContext#idleSessions}); when the server sent something (it does before
     * ending a session) the reaper wakes and looks: a session ended for a reason of its own
     * (idle_session_timeout, a terminated backend) is replaced at once and the source stays
     * connected; a server that is gone reads as disconnected, with the reason, from then on.
     */
    private void sleepWatched(Instant until) throws InterruptedException {
        IdleSessionWatch watch = context.idleSessions();
        SourceSession session = keeper.session();
        if (watch == null || session == null) {
            timer.sleepUntil(until, wake);
            return;
        }
        if (watch.sleepUntil(timer, until, wake, session::anythingArrived)) {
            Instant now = timer.now();
            if (keeper.endedWhileIdle(now)) {
                keeper.ensure(config, now);
                publishStatus(null);
            }
        }
    }

    /**
     * A tick of a stretched schedule: nothing is sent to the slow server. Counted and shown in
     * the status; only the free heartbeat (the session is or is not open) is published.
     */
    private void skipStretched(TickSchedule.DueTick due, Instant now) {
        sourceMeters.stretched(stretch.skipped());
        status.skipped(due.skippedPoints());
        if (due.metrics().contains(INSTANCE_UP) && !keeper.refused()) {
            publish(List.of(instanceUp(keeper.connected(), now)));
        }
        publishStatus(null);
    }

    private void applyPendingConfig() {
        CollectionPlan next = pendingConfig;
        if (next == config) {
            return;
        }
        if (config != null && !config.sameConnection(next)) {
            log.info("Source {}: connection settings changed, reconnecting", name);
            keeper.reconnectNow();
            keeper.forgetFailures();
        }
        config = next;
        replan(timer.now());
        publishStatus(null);
    }

    /** Recomputes the active metrics for the current config and server role, keeping due times. */
    private void replan(Instant now) {
        ServerFacts facts = keeper.facts();
        boolean inRecovery = facts != null && facts.inRecovery();
        Map<String, Integer> selection = config.selection(inRecovery);
        var active = new LinkedHashMap<String, Duration>();
        inactiveMetrics.clear();
        int shortest = Integer.MAX_VALUE;
        for (var entry : selection.entrySet()) {
            shortest = Math.min(shortest, entry.getValue());
            MetricLane lane = inactiveLane(config.definitions().get(entry.getKey()), facts);
            if (lane != null) {
                inactiveMetrics.put(entry.getKey(), lane);
            } else {
                active.put(entry.getKey(), Duration.ofSeconds(entry.getValue()));
            }
        }
        active.put(INSTANCE_UP, shortest == Integer.MAX_VALUE ? DEFAULT_HEARTBEAT : Duration.ofSeconds(shortest));
        long phaseSeed = name.hashCode() * 2_654_435_761L;
        schedule = TickSchedule.plan(active, context.minTickPeriod(), phaseSeed, now, schedule);
        if (firstPlanned == null) {
            firstPlanned = now;
        }
        Instant previousTick = previousOwnerTick;
        if (previousTick != null) {
            previousOwnerTick = null;
            schedule.resumeAfter(previousTick);
        }
        solo.retainOnly(active.keySet());
        natives.retainOnly(active.keySet());
        ledger.retainOnly(selection.keySet());
        keeper.syncInstance(config, schedule.intervals().keySet());
        inactiveMetrics.forEach((metric, lane) -> {
            if (lane == MetricLane.NO_SQL) {
                log.info("Source {}: metric {} has no SQL for server version {}; not collected",
                        name, metric, facts.displayVersion());
            }
        });
    }

    private MetricLane inactiveLane(MetricDefinition definition, ServerFacts facts) {
        if (facts == null) {
            return null; // not connected yet: schedule everything, only heartbeats run
        }
        if (config.source().onlyIfPrimary() && facts.inRecovery()
                || !definition.nodeStatus().matches(facts.inRecovery())) {
            return MetricLane.NOT_FOR_ROLE;
        }
        return definition.sqlFor(facts.majorVersion()).isEmpty() && !definition.isNative() ? MetricLane.NO_SQL : null;
    }

    private void tick(TickSchedule.DueTick due, Instant startedAt) {
        long startNanos = System.nanoTime();
        status.tickStarted(startNanos, due.skippedPoints());
        // A tick is late from its grid point, or from the first plan for a point that passed before it.
        Instant lateFrom = due.scheduledAt().isBefore(firstPlanned) ? firstPlanned : due.scheduledAt();
        context.meters().lag(Duration.between(lateFrom, startedAt));
        sourceMeters.tick(due.skippedPoints());
        var out = new ArrayList<Measurement>();
        TickRunner runner = null;
        boolean up = false;
        slowReason = null;
        try {
            runner = collect(due, startedAt);
            up = keeper.connected();
        } catch (RuntimeException e) {
            // Loops never die from one failure: record it and carry on with the next tick.
            log.error("Source {}: tick failed unexpectedly", name, e);
            keeper.factsStale(true);
            up = keeper.connected();
        } finally {
            if (lastRunner != null) {
                out.addAll(lastRunner.measurements()); // also what was fetched before a session loss
                lastRunner = null;
            }
            out.addAll(nativeMeasurements);
            nativeMeasurements.clear();
            // A refused session is not a server that is down: its state says refused, with the reason.
            if (due.metrics().contains(INSTANCE_UP) && !keeper.refused()) {
                out.add(instanceUp(up && runner != null, startedAt));
            }
            Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
            status.tickEnded(startedAt, took);
            if (keeper.connected()) {
                stretch.afterTick(schedule, due.scheduledAt(), slowReason, took);
            }
            publish(out);
            publishStatus(null);
            firstTickOver();
        }
    }

    private void awaitLoginGate() throws InterruptedException {
        CompletableFuture<Void> gate = loginGate;
        if (gate == null) {
            return;
        }
        Instant until = timer.now().plus(LOGIN_HOLD_LIMIT);
        while (!gate.isDone() && !stopRequested && timer.now().isBefore(until)) {
            timer.sleepUntil(until, wake);
        }
        loginGate = null;
    }

    private void firstTickOver() {
        Runnable after = afterFirstTick;
        if (after != null) {
            afterFirstTick = null;
            after.run();
        }
    }

    /**
     * Runs the tick's metrics; returns the runner, or null when the source could not be reached.
     * A session that was idle since the last tick and turns out to be closed (idle_session_timeout,
     * a restarted pooler) is reopened and the tick tried once more, so that it is not lost.
     */
    private TickRunner collect(TickSchedule.DueTick due, Instant startedAt) {
        for (int attempt = 1; ; attempt++) {
            boolean hadSession = keeper.connected();
            lastRunner = null;
            try {
                if (!keeper.ensure(config, startedAt)) {
                    return null;
                }
                if (!keeper.refreshFactsIfDue(startedAt, due.scheduledAt())) {
                    slowReason = keeper.slowReason();
                    lastRunner = newTickRunner(); // the session stays; nothing more is asked of the server now
                    return lastRunner;
                }
                // Connecting or re-reading the role may have re-planned: run only what is still
                // scheduled (a metric of the other role's selection must not run now).
                Map<String, Duration> intervals = schedule.intervals();
                var metrics = due.metrics().stream()
                        .filter(m -> !m.equals(INSTANCE_UP) && intervals.containsKey(m)).toList();
                lastRunner = newTickRunner();
                lastRunner.run(metrics, intervals, startedAt, due.scheduledAt());
                // Native metrics after the round trip, so that their work never delays it; the
                // runner skips them (they have no SQL).
                natives.run(metrics, config, keeper.session(), keeper.instance(), intervals, ledger, startedAt,
                        nativeMeasurements);
                // A failing metric may mean a promotion or demotion: re-read the role next tick.
                keeper.factsStale(lastRunner.pipelineFailed());
                slowReason = lastRunner.slowReason();
                return lastRunner;
            } catch (SourceDownException | SQLException e) {
                SourceDownException down = e instanceof SourceDownException d ? d
                        : new SourceDownException(name, (SQLException) e);
                boolean nothingFetched = lastRunner == null || lastRunner.measurements().isEmpty();
                if (attempt == 1 && hadSession && nothingFetched) {
                    log.info("Source {}: session found closed, reconnecting within this tick ({})", name,
                            down.getMessage());
                    keeper.reconnectNow();
                    continue;
                }
                keeper.lost(down, startedAt);
                return null;
            }
        }
    }

    private TickRunner newTickRunner() {
        SourceSession session = keeper.session();
        return new TickRunner(config, session, solo, ledger, keeper.instance(), session.facts().database(),
                context.meters(), sourceMeters, context.defaultStatementTimeout(), context.maxExtraRoundTrips());
    }

    private Measurement instanceUp(boolean up, Instant at) {
        var row = new Measurement.Row(Map.of(INSTANCE_UP_METRIC, up ? 1L : 0L), Map.of());
        return new Measurement(name, INSTANCE_UP_METRIC, at, List.of(row), config.source().tags());
    }

    private void publish(List<Measurement> measurements) {
        if (measurements.isEmpty()) {
            return;
        }
        try {
            // Literals and settings' secrets leave here or nowhere: everything downstream (sinks, the
            // recent window, change events, status, logs) sees the redacted values.
            Source source = config.source();
            List<Measurement> shown = source.keepQueryLiterals() ? measurements
                    : QueryTextRedaction.redact(measurements);
            context.publisher().publish(SettingRedaction.redact(shown, source.keepCommandSettings()));
        } catch (RuntimeException e) {
            log.error("Source {}: could not hand {} measurements to the sinks", name, measurements.size(), e);
        }
    }

    private void publishStatus(SessionState forcedState) {
        status.publish(forcedState, loopFailure, config, schedule, inactiveMetrics);
    }
}
