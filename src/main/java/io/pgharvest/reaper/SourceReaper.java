package io.pgharvest.reaper;

import io.pgharvest.kind.ServerFacts;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceRuntimeStatus;
import io.pgharvest.reaper.isolation.SoloLane;
import io.pgharvest.reaper.schedule.ScheduleStretch;
import io.pgharvest.reaper.schedule.TickSchedule;
import io.pgharvest.reaper.schedule.TickTimer;
import io.pgharvest.reaper.schedule.WakeSignal;
import io.pgharvest.reaper.tick.CollectionPlan;
import io.pgharvest.reaper.tick.MetricLedger;
import io.pgharvest.reaper.tick.NativeLane;
import io.pgharvest.reaper.tick.ReaperMeters;
import io.pgharvest.reaper.tick.SourceDownException;
import io.pgharvest.reaper.tick.TickRunner;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects one source: one virtual thread that sleeps until the next grid point at which a metric
 * is due, sends every due metric in one round trip, hands the measurements to the sinks without
 * waiting for them, and goes back to sleep. This class is the schedule loop; its parts each own
 * the state of one job: {@link ReaperThread} (the thread, its lifecycle and supervisor),
 * {@link FirstTick} (where the first tick is placed), {@link ReaperPlan} (the configuration, the
 * schedule made from it and the inactive metrics), {@link SessionKeeper} (the session, reconnect
 * back-off, server facts, instance membership, the idle session's watch), {@link ScheduleStretch}
 * (backing off a slow server), {@link TickRunner} (one tick's round trips), {@link NativeLane}
 * (native metrics), {@link SourcePublisher} (the redacted exit to the sinks) and
 * {@link ReaperStatus} (counters and the published status).
 *
 * <p>Threading: all fields without {@code volatile}, and the parts above, are owned by the reaper
 * thread. Other threads talk to it only through {@link #reconfigure} (a new immutable
 * {@link CollectionPlan} plus one wake-up), {@link #recheckServerFactsUntil}, {@link #stop()},
 * {@link #status()} (an immutable snapshot), and before {@link #start()} its {@link #firstTick()}.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #stop()} (non-blocking) then
 * {@link #awaitStop(Duration)}, which interrupts a tick that does not finish in time; the
 * session is closed in {@code finally} whatever happens.
 */
final class SourceReaper implements ReaperThread.Body {

    private static final Logger log = LoggerFactory.getLogger(SourceReaper.class);

    private static final Duration IDLE_SLEEP = Duration.ofHours(1);

    private final String name;
    private final ReaperContext context;
    private final TickTimer timer;
    private final WakeSignal wake = new WakeSignal();
    private final ReaperThread thread;
    private final FirstTick firstTick = new FirstTick(wake);
    private final ReaperMeters.SourceMeters sourceMeters;
    private volatile CollectionPlan pendingConfig;

    // Owned by the reaper thread.
    private final ReaperPlan plan;
    private final SessionKeeper keeper;
    private final ScheduleStretch stretch;
    private final SoloLane solo;
    private final MetricLedger ledger;
    private final NativeLane natives;
    private final ReaperStatus status;
    private final SourcePublisher publisher;
    /** What the tick's native metrics delivered, published with the rest of the tick. */
    private final List<Measurement> nativeMeasurements = new ArrayList<>();
    /** Why the tick in progress found the server slow, or null. */
    private String slowReason;
    /** The runner of the tick in progress, so that its measurements survive any exception. */
    private TickRunner lastRunner;

    SourceReaper(CollectionPlan config, ReaperContext context, TickTimer timer) {
        this.name = config.name();
        this.context = context;
        this.timer = timer;
        this.pendingConfig = config;
        this.thread = new ReaperThread(name, context, timer, wake);
        this.plan = new ReaperPlan(name, context.minTickPeriod());
        this.ledger = new MetricLedger(name);
        this.natives = new NativeLane(name, context.natives());
        this.solo = new SoloLane(context.soloMaxBackoff());
        this.sourceMeters = context.meters().forSource(name);
        this.keeper = new SessionKeeper(name, context, this::replan);
        this.stretch = new ScheduleStretch(name, context.maxStretch());
        this.status = new ReaperStatus(name, context, keeper, stretch, solo, natives, ledger);
        this.publisher = new SourcePublisher(name, context.publisher());
        sourceMeters.undelivered(status::undeliveredCount);
    }

    String name() {
        return name;
    }

    /** Before {@link #start}: where the first tick is placed (after a previous owner's, at once, after a login gate). */
    FirstTick firstTick() {
        return firstTick;
    }

    void start() {
        thread.start(this);
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
        thread.stop();
    }

    /** Waits for the reaper to stop ({@link ReaperThread#awaitStop}); true when its thread has ended. */
    boolean awaitStop(Duration timeout) throws InterruptedException {
        return thread.awaitStop(timeout);
    }

    /** The last published status, {@link SessionState#STALLED} while a tick waits too long ({@link ReaperStatus#current}). */
    SourceRuntimeStatus status() {
        return status.current();
    }

    /**
     * Connects at once rather than at the first grid point, which may be up to one period away: an
     * operator who adds a source learns within seconds whether it works (at most
     * {@link FirstTick#LOGIN_HOLD_LIMIT} later while the server's early first ticks run).
     */
    @Override
    public void begin() throws InterruptedException {
        applyPendingConfig();
        firstTick.awaitLoginGate(timer, thread::stopRequested);
        if (!keeper.ensure(plan.config(), timer.now())) {
            // Unreachable: this early start would hold back the other sources' logins.
            firstTick.over();
        }
        publishStatus(null);
    }

    /** One turn of the loop: re-plan if told to, then sleep until something is due or run it. */
    @Override
    public void turn() throws InterruptedException {
        applyPendingConfig();
        Instant now = timer.now();
        TickSchedule schedule = plan.schedule();
        Instant next = schedule.nextWake();
        if (next == null || now.isBefore(next)) {
            if (keeper.sleepWatched(timer, next == null ? now.plus(IDLE_SLEEP) : next, wake, plan.config())) {
                publishStatus(null);
            }
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

    @Override
    public void failed() {
        keeper.close();
        publishStatus(SessionState.FAILED);
    }

    @Override
    public void ended() {
        firstTick.over();
        keeper.close();
        context.meters().release(sourceMeters);
        publishStatus(SessionState.STOPPED);
    }

    /**
     * A tick of a stretched schedule: nothing is sent to the slow server. Counted and shown in
     * the status; only the free heartbeat (the session is or is not open) is published.
     */
    private void skipStretched(TickSchedule.DueTick due, Instant now) {
        sourceMeters.stretched(stretch.skipped());
        status.skipped(due.skippedPoints());
        if (due.metrics().contains(ReaperPlan.INSTANCE_UP) && !keeper.refused()) {
            publish(List.of(plan.instanceUp(keeper.connected(), now)));
        }
        publishStatus(null);
    }

    private void applyPendingConfig() {
        CollectionPlan next = pendingConfig;
        CollectionPlan config = plan.config();
        if (next == config) {
            return;
        }
        if (config != null && !config.sameConnection(next)) {
            log.info("Source {}: connection settings changed, reconnecting", name);
            keeper.reconnectNow();
            keeper.forgetFailures();
        }
        plan.use(next);
        replan(timer.now());
        publishStatus(null);
    }

    /** Recomputes the active metrics for the current config and server role, keeping due times. */
    private void replan(Instant now) {
        ServerFacts facts = keeper.facts();
        ReaperPlan.Planned planned = plan.replan(facts, now, firstTick.takePreviousOwnerTick());
        solo.retainOnly(planned.active());
        natives.retainOnly(planned.active());
        ledger.retainOnly(planned.selected());
        keeper.syncInstance(plan.config(), plan.schedule().intervals().keySet());
        plan.logInactive(facts);
    }

    private void tick(TickSchedule.DueTick due, Instant startedAt) {
        long startNanos = System.nanoTime();
        status.tickStarted(startNanos, due.skippedPoints());
        context.meters().lag(Duration.between(plan.lateFrom(due.scheduledAt()), startedAt));
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
            if (due.metrics().contains(ReaperPlan.INSTANCE_UP) && !keeper.refused()) {
                out.add(plan.instanceUp(up && runner != null, startedAt));
            }
            Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
            status.tickEnded(startedAt, took);
            if (keeper.connected()) {
                stretch.afterTick(plan.schedule(), due.scheduledAt(), slowReason, took);
            }
            publish(out);
            publishStatus(null);
            firstTick.over();
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
                CollectionPlan config = plan.config();
                if (!keeper.ensure(config, startedAt)) {
                    return null;
                }
                if (!keeper.refreshFactsIfDue(startedAt, due.scheduledAt())) {
                    slowReason = keeper.slowReason();
                    lastRunner = newTickRunner(); // the session stays; nothing more is asked of the server now
                    return lastRunner;
                }
                Map<String, Duration> intervals = plan.schedule().intervals();
                List<String> metrics = plan.stillScheduled(due.metrics());
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
        return new TickRunner(plan.config(), session, solo, ledger, keeper.instance(), session.facts().database(),
                context.meters(), sourceMeters, context.defaultStatementTimeout(), context.maxExtraRoundTrips());
    }

    private void publish(List<Measurement> measurements) {
        publisher.publish(measurements, plan.config().source());
    }

    private void publishStatus(SessionState forcedState) {
        status.publish(forcedState, thread.failure(), plan.config(), plan.schedule(), plan.inactive());
    }
}
