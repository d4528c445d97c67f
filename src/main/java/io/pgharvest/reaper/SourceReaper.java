package io.pgharvest.reaper;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.MetricLane;
import io.pgharvest.model.MetricRuntimeStatus;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.SourceRuntimeStatus;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects one source: one virtual thread that sleeps until the next grid point at which a metric
 * is due, sends every due metric in one round trip, hands the measurements to the sinks without
 * waiting for them, and goes back to sleep.
 *
 * <p>Threading: all fields without {@code volatile} are owned by the reaper thread. Other
 * threads talk to it only through {@link #reconfigure} (a new immutable {@link ReaperConfig}
 * plus one wake-up), {@link #stop()} and {@link #status()} (an immutable snapshot).
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

    private final String name;
    private final ReaperContext context;
    private final TickTimer timer;
    private final WakeSignal wake = new WakeSignal();
    private final AtomicBoolean started = new AtomicBoolean();
    private final ReaperMeters.SourceMeters sourceMeters;
    private volatile ReaperConfig pendingConfig;
    private volatile boolean stopRequested;
    private volatile SourceRuntimeStatus status;
    private volatile Thread thread;

    // Owned by the reaper thread.
    private ReaperConfig config;
    private SourceSession session;
    /** The instance this source's session is on: one that shares nothing unless known (system identifier readable). */
    private Instance instance = Instance.alone();
    private TickSchedule schedule = TickSchedule.empty();
    /** The previous owner's last tick of a source taken over from another instance; used at the first plan. */
    private volatile Instant previousOwnerTick;
    private final SoloLane solo;
    private final MetricLedger ledger;
    private final NativeLane natives;
    /** What the tick's native metrics delivered, published with the rest of the tick. */
    private final List<Measurement> nativeMeasurements = new ArrayList<>();
    private Map<String, Integer> sortedSelectionOf;
    private List<Map.Entry<String, Integer>> sortedSelection = List.of();
    private final Map<String, MetricLane> inactiveMetrics = new LinkedHashMap<>();
    private int connectFailures;
    private Instant nextConnectAttempt = Instant.MIN;
    private String lastConnectionError;
    /** Set while the supervisor waits to restart a failed loop. */
    private volatile String loopFailure;
    /** System.nanoTime() when the running tick began; 0 between ticks. */
    private volatile long tickStartedNanos;
    private String loggedPrivilegeWarning;
    private Instant lastConnectionErrorAt;
    private boolean factsStale;
    /** Set by other threads ({@link #recheckServerFactsUntil}): re-read the facts every tick until then. */
    private volatile Instant recheckFactsUntil = Instant.MIN;
    private long ticks;
    private long skippedTicks;
    /** Consecutive slow ticks; the stretch doubles with each. */
    private int slowStreak;
    /** Due ticks whose grid point is before this are skipped (null: not stretched). */
    private Instant stretchedUntil;
    private String stretchReason;
    private String stretchKind;
    private long stretchedTicks;
    private Instant lastTickStart;
    private Duration lastTickDuration;
    /** Why the tick in progress found the server slow, or null. */
    private String slowReason;
    /** The runner of the tick in progress, so that its measurements survive any exception. */
    private TickRunner lastRunner;

    SourceReaper(ReaperConfig config, ReaperContext context, TickTimer timer) {
        this.name = config.name();
        this.ledger = new MetricLedger(name);
        this.natives = new NativeLane(name, context.natives());
        this.context = context;
        this.timer = timer;
        this.pendingConfig = config;
        this.solo = new SoloLane(context.soloMaxBackoff());
        this.sourceMeters = context.meters().forSource(name);
        this.status = new SourceRuntimeStatus(name, SessionState.STARTING, false, null, null, null, null, null, null,
                null, null, null, 0, 0, List.of(), null, 0, null);
    }

    String name() {
        return name;
    }

    /** Before {@link #start}: the source's previous owner (another instance) last ticked at {@code lastTick}. */
    void resumeAfter(Instant lastTick) {
        previousOwnerTick = lastTick;
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
    void reconfigure(ReaperConfig next) {
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
        if (until.isAfter(recheckFactsUntil)) {
            recheckFactsUntil = until;
        }
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

    /**
     * The last published status; while a tick has waited for the server longer than a tick
     * period (and the default statement timeout, which the server enforces itself), it shows
     * {@link SessionState#STALLED}: the reaper thread is blocked then and publishes nothing.
     */
    SourceRuntimeStatus status() {
        SourceRuntimeStatus published = status;
        long started = tickStartedNanos;
        Duration period = published.tickPeriod();
        if (started == 0 || period == null || published.state() != SessionState.CONNECTED) {
            return published;
        }
        Duration waiting = Duration.ofNanos(System.nanoTime() - started);
        Duration statementLimit = context.defaultStatementTimeout();
        Duration limit = period.compareTo(statementLimit) > 0 ? period : statementLimit;
        if (waiting.compareTo(limit) <= 0) {
            return published;
        }
        return published.withState(SessionState.STALLED, "no answer from the server for " + waiting.toSeconds()
                + " s (tick period " + period.toSeconds() + " s)", published.lastTickStart());
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
                    // period away: an operator who adds a source learns within seconds whether it works.
                    applyPendingConfig();
                    ensureSession(timer.now());
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
                    closeSession();
                    publishStatus(SessionState.FAILED);
                    timer.sleepUntil(timer.now().plus(delay), wake);
                    loopFailure = null;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeSession();
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
            timer.sleepUntil(next == null ? now.plus(IDLE_SLEEP) : next, wake);
            return;
        }
        TickSchedule.DueTick due = schedule.takeDue(now);
        if (due.isEmpty()) {
            return;
        }
        if (stretchedUntil != null && due.scheduledAt().isBefore(stretchedUntil)) {
            skipStretched(due, now);
        } else {
            tick(due, now);
        }
    }

    /**
     * A tick of a stretched schedule: nothing is sent to the slow server. Counted and shown in
     * the status; only the free heartbeat (the session is or is not open) is published.
     */
    private void skipStretched(TickSchedule.DueTick due, Instant now) {
        stretchedTicks++;
        sourceMeters.stretched(stretchKind);
        skippedTicks += due.skippedPoints();
        if (due.metrics().contains(INSTANCE_UP)) {
            publish(List.of(instanceUp(session != null, now)));
        }
        publishStatus(null);
    }

    /**
     * After each tick: a slow one (a timeout with no answer, or longer than the tick period)
     * stretches the schedule by one period, doubling per consecutive slow tick up to
     * pgharvest.reaper.max-stretch; a tick that is not slow ends the stretch.
     */
    private void stretchIfSlow(TickSchedule.DueTick due, String timeoutReason, Duration took) {
        if (schedule.isEmpty()) {
            return; // nothing scheduled, nothing to stretch
        }
        Duration period = schedule.period();
        String overrun = took.compareTo(period) > 0
                ? "tick took " + took.toMillis() + " ms, longer than its period of " + period.toMillis() + " ms"
                : null;
        if (timeoutReason == null && overrun == null) {
            slowStreak = 0;
            stretchedUntil = null;
            return;
        }
        slowStreak++;
        Duration delay = new io.pgharvest.support.Backoff(period, context.maxStretch().compareTo(period) < 0
                ? period : context.maxStretch()).after(slowStreak);
        stretchedUntil = due.scheduledAt().plus(period).plus(delay);
        stretchKind = timeoutReason != null ? "timeout" : "overrun";
        stretchReason = (timeoutReason != null ? timeoutReason : overrun) + "; ticks before "
                + stretchedUntil + " are skipped";
        if (slowStreak == 1 || Integer.bitCount(slowStreak) == 1) {
            log.warn("Source {}: {}", name, stretchReason);
        }
    }

    private void applyPendingConfig() {
        ReaperConfig next = pendingConfig;
        if (next == config) {
            return;
        }
        if (config != null && !config.sameConnection(next)) {
            log.info("Source {}: connection settings changed, reconnecting", name);
            closeSession();
            connectFailures = 0;
            nextConnectAttempt = Instant.MIN;
        }
        config = next;
        replan(timer.now());
        publishStatus(null);
    }

    /** Recomputes the active metrics for the current config and server role, keeping due times. */
    private void replan(Instant now) {
        ServerFacts facts = session == null ? null : session.facts();
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
        Instant previousTick = previousOwnerTick;
        if (previousTick != null) {
            previousOwnerTick = null;
            schedule.resumeAfter(previousTick);
        }
        solo.retainOnly(active.keySet());
        natives.retainOnly(active.keySet());
        ledger.retainOnly(selection.keySet());
        syncInstance();
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
        tickStartedNanos = startNanos;
        context.meters().lag(Duration.between(due.scheduledAt(), startedAt));
        sourceMeters.tick(due.skippedPoints());
        skippedTicks += due.skippedPoints();
        ticks++;
        var out = new ArrayList<Measurement>();
        TickRunner runner = null;
        boolean up = false;
        slowReason = null;
        try {
            runner = collect(due, startedAt);
            up = session != null;
        } catch (RuntimeException e) {
            // Loops never die from one failure: record it and carry on with the next tick.
            log.error("Source {}: tick failed unexpectedly", name, e);
            factsStale = true;
            up = session != null;
        } finally {
            if (lastRunner != null) {
                out.addAll(lastRunner.measurements()); // also what was fetched before a session loss
                lastRunner = null;
            }
            out.addAll(nativeMeasurements);
            nativeMeasurements.clear();
            if (due.metrics().contains(INSTANCE_UP)) {
                out.add(instanceUp(up && runner != null, startedAt));
            }
            tickStartedNanos = 0;
            lastTickStart = startedAt;
            lastTickDuration = Duration.ofNanos(System.nanoTime() - startNanos);
            if (session != null) {
                stretchIfSlow(due, slowReason, lastTickDuration);
            }
            publish(out);
            publishStatus(null);
        }
    }

    /**
     * Runs the tick's metrics; returns the runner, or null when the source could not be reached.
     * A session that was idle since the last tick and turns out to be closed (idle_session_timeout,
     * a restarted pooler) is reopened and the tick tried once more, so that it is not lost.
     */
    private TickRunner collect(TickSchedule.DueTick due, Instant startedAt) {
        for (int attempt = 1; ; attempt++) {
            boolean hadSession = session != null;
            lastRunner = null;
            try {
                if (!ensureSession(startedAt)) {
                    return null;
                }
                if (!refreshFactsIfDue(startedAt, due.scheduledAt())) {
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
                natives.run(metrics, config, session, intervals, ledger, startedAt, nativeMeasurements);
                // A failing metric may mean a promotion or demotion: re-read the role next tick.
                factsStale = lastRunner.pipelineFailed();
                slowReason = lastRunner.slowReason();
                return lastRunner;
            } catch (SourceDownException | SQLException e) {
                SourceDownException down = e instanceof SourceDownException d ? d
                        : new SourceDownException(name, (SQLException) e);
                boolean nothingFetched = lastRunner == null || lastRunner.measurements().isEmpty();
                if (attempt == 1 && hadSession && nothingFetched) {
                    log.info("Source {}: session found closed, reconnecting within this tick ({})", name,
                            down.getMessage());
                    closeSession();
                    nextConnectAttempt = Instant.MIN;
                    continue;
                }
                sessionLost(down, startedAt);
                return null;
            }
        }
    }

    private TickRunner newTickRunner() {
        return new TickRunner(config, session, solo, ledger, instance, session.facts().database(), context.meters(),
                sourceMeters, context.defaultStatementTimeout(), context.maxExtraRoundTrips());
    }

    /**
     * Joins the instance the session is on with the metrics now active (or moves to another one
     * after a reconnect to another server, or leaves when there is no session or the instance is
     * unknown). Called after every re-plan.
     */
    private void syncInstance() {
        ServerFacts facts = session == null ? null : session.facts();
        String key = facts == null ? null : facts.instanceKey(config.connection().hosts().getFirst().toString());
        if (instance.shared() && !instance.key().equals(key)) {
            leaveInstance();
        }
        if (key != null) {
            instance = context.instances().join(key, name, facts.database(), schedule.intervals().keySet());
        }
    }

    private void leaveInstance() {
        context.instances().leave(instance, name);
        instance = Instance.alone();
    }

    /** Opens a session unless one is open or the reconnect back-off has not passed. */
    private boolean ensureSession(Instant now) {
        if (session != null) {
            return true;
        }
        if (now.isBefore(nextConnectAttempt)) {
            return false;
        }
        try {
            session = context.endpoints().open(config.source().kind(), config.connection(), now);
            if (connectFailures > 0) {
                log.info("Source {}: connected again after {} failed attempts", name, connectFailures);
            }
            connectFailures = 0;
            factsStale = false;
            // The status shows the current trouble, not an error that is over.
            lastConnectionError = null;
            lastConnectionErrorAt = null;
            warnOnceAboutPrivileges(session.privileges().warning());
            replan(now);
            return true;
        } catch (SQLException e) {
            connectFailures++;
            Duration backoff = context.reconnectBackoff().after(connectFailures);
            nextConnectAttempt = now.plus(backoff);
            recordConnectionError("cannot connect [SQLState " + e.getSQLState() + "]: " + e.getMessage(), now);
            if (connectFailures == 1 || Integer.bitCount(connectFailures) == 1) {
                log.warn("Source {}: {} (attempt {}, next in {} s)", name, lastConnectionError,
                        connectFailures, backoff.toSeconds());
            }
            return false;
        }
    }

    /** Logged when the role's privileges are first seen or change, not on every reconnect. */
    private void warnOnceAboutPrivileges(String warning) {
        if (warning != null && !warning.equals(loggedPrivilegeWarning)) {
            log.warn("Source {}: {}", name, warning);
        }
        loggedPrivilegeWarning = warning;
    }

    /**
     * Re-reads the facts when due (always while {@link #recheckServerFactsUntil} asks). A facts
     * query that fails without losing the session (the server did not answer within the facts'
     * own time limit) keeps the session: reconnecting would only add a backend to a busy server.
     * The tick then runs nothing, and a timeout counts as a slow tick. On a change of role or
     * version it re-plans from {@code gridPoint} (this tick's point), so the new role's metrics
     * are due at once and run right after this tick rather than one period later.
     *
     * @return false when the facts could not be read and the tick should ask nothing more
     * @throws SQLException when the session is gone
     */
    private boolean refreshFactsIfDue(Instant now, Instant gridPoint) throws SQLException {
        if (now.isBefore(recheckFactsUntil)) {
            factsStale = true;
        }
        ServerFacts facts = session.facts();
        if (!factsStale && Duration.between(facts.readAt(), now).compareTo(context.factsRefreshInterval()) < 0) {
            return true;
        }
        ServerFacts fresh;
        try {
            fresh = session.refreshFacts(now);
        } catch (SQLException e) {
            SourceSession.Failure failure = session.classify(e);
            if (failure == SourceSession.Failure.BROKEN) {
                throw e;
            }
            factsStale = true;
            String reason = "facts query failed, session kept [SQLState " + e.getSQLState() + "]: " + e.getMessage();
            if (failure == SourceSession.Failure.SLOW) {
                slowReason = "server slow: " + reason;
            } else {
                log.warn("Source {}: {}", name, reason);
            }
            return false;
        }
        factsStale = false;
        if (fresh.inRecovery() != facts.inRecovery() || fresh.majorVersion() != facts.majorVersion()) {
            log.info("Source {}: server is now {} (version {})", name,
                    fresh.inRecovery() ? "a standby" : "a primary", fresh.displayVersion());
            replan(gridPoint.isAfter(now) ? now : gridPoint);
        }
        return true;
    }

    private void sessionLost(SourceDownException e, Instant now) {
        log.warn("Source {}: {}", name, e.getMessage());
        recordConnectionError(e.getMessage(), now);
        closeSession();
        connectFailures = 1;
        nextConnectAttempt = now; // first reconnect at the next tick, then back off
    }

    private void recordConnectionError(String message, Instant at) {
        lastConnectionError = message;
        lastConnectionErrorAt = at;
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
            context.publisher().publish(measurements);
        } catch (RuntimeException e) {
            log.error("Source {}: could not hand {} measurements to the sinks", name, measurements.size(), e);
        }
    }

    private void closeSession() {
        leaveInstance();
        if (session != null) {
            session.close();
            session = null;
        }
    }

    private void publishStatus(SessionState forcedState) {
        try {
            SourceRuntimeStatus next = buildStatus(forcedState);
            status = next;
            context.statusListener().accept(next);
        } catch (RuntimeException e) {
            log.warn("Source {}: could not publish status", name, e);
        }
    }

    private SourceRuntimeStatus buildStatus(SessionState forcedState) {
        ServerFacts facts = session == null ? null : session.facts();
        SessionState state = forcedState != null ? forcedState
                : session != null ? SessionState.CONNECTED
                : connectFailures > 0 ? SessionState.DISCONNECTED : SessionState.STARTING;
        var metrics = new ArrayList<MetricRuntimeStatus>();
        if (config != null) {
            Map<String, Duration> intervals = schedule.intervals();
            for (var entry : sortedSelection(config.selection(facts != null && facts.inRecovery()))) {
                String metric = entry.getKey();
                MetricDefinition definition = config.definitions().get(metric);
                MetricLane running = definition != null && definition.isNative() ? natives.lane(metric)
                        : solo.contains(metric) ? MetricLane.SOLO : MetricLane.PIPELINE;
                MetricLane lane = inactiveMetrics.getOrDefault(metric, running);
                metrics.add(new MetricRuntimeStatus(metric, entry.getValue(), lane, ledger.lastSuccess(metric),
                        ledger.lastError(metric), ledger.lastErrorAt(metric),
                        intervals.containsKey(metric) ? schedule.nextDue(metric) : null));
            }
        }
        String error = state == SessionState.FAILED ? loopFailure : lastConnectionError;
        return new SourceRuntimeStatus(name, state, session != null, error, lastConnectionErrorAt,
                facts == null ? null : facts.displayVersion(),
                facts == null || facts.versionNum() == 0 ? null : facts.versionNum(),
                facts == null ? null : facts.inRecovery(),
                facts == null ? null : facts.systemIdentifier(),
                schedule.isEmpty() ? null : schedule.period(), lastTickStart, lastTickDuration, ticks, skippedTicks,
                metrics, session == null ? null : session.privileges().warning(), stretchedTicks, stretchReason,
                instanceShare(facts));
    }

    private SourceRuntimeStatus.InstanceShare instanceShare(ServerFacts facts) {
        Instance current = instance;
        if (!current.shared() || facts == null) {
            return null;
        }
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

    /** The selection in name order; sorted again only when the selection itself changes, not every tick. */
    private List<Map.Entry<String, Integer>> sortedSelection(Map<String, Integer> selection) {
        if (selection != sortedSelectionOf) {
            sortedSelection = List.copyOf(new java.util.TreeMap<>(selection).entrySet());
            sortedSelectionOf = selection;
        }
        return sortedSelection;
    }
}
