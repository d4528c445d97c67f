package io.pgharvest.reaper.tick;

import io.pgharvest.kind.AloneRun;
import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.NotReadingException;
import io.pgharvest.kind.RoundTrip;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.BoundedText;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.reaper.instance.Instance;
import io.pgharvest.reaper.isolation.MissingObject;
import io.pgharvest.reaper.isolation.SoloLane;
import io.pgharvest.reaper.isolation.SuspectGroups;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs the metrics due on one tick against one session: instance-level and fanned-out results
 * come from the {@link Instance}'s shared results when fresh, healthy metrics go in one pipelined
 * round trip, isolated metrics run alone. A fanned-out metric that this source fetches runs its
 * instance-wide variant; the result is split per database, shared, and this source delivers its
 * own database's share.
 *
 * <p>Never makes a struggling server worse. When a pipeline fails, the server's error often points
 * at the failing metric (an object this server lacks: {@link SourceSession#culprit}); that metric moves
 * to the solo lane at once and the rest is sent again, within the allowance below. Otherwise the
 * pipeline does not tell which statement failed; its metrics become suspects and are narrowed
 * down by a binary search that goes on across ticks ({@link SuspectGroups}), with at most
 * {@code maxExtraRoundTrips} more round trips per tick: a half that succeeds is delivered and
 * cleared, a half that fails is halved again (later in the tick while round trips are left, else
 * on a later tick), a suspect that fails alone moves to the solo lane. So a source never adds more than that many round trips to a
 * tick, whatever fails, and a few failing metrics cost the healthy ones their data only for the
 * few ticks the search takes. Retries of solo metrics share the same allowance.
 *
 * <p>A failure that says the server is slow (statement or lock timeout) is not a metric's own:
 * when the healthy pipeline times out, the tick adds no round trip, and a metric that times out
 * alone is only moved to the solo lane when another round trip of the same tick was answered in
 * time (with rows, or with a metric's own error). A tick with a timeout and no round trip
 * answered is reported as slow ({@link #slowReason()}); the reaper then stretches the source's
 * schedule.
 *
 * <p>Throws {@link SourceDownException} only when the session itself is gone; a failing query
 * never escapes as an exception.
 */
public final class TickRunner {

    /**
     * Overruns after which a tick sends no more continuations (the statements after a timed-out
     * one): each costs the server at most one statement's time limit, and a server that overran
     * that often in one tick is slow, not one metric.
     */
    static final int MAX_OVERRUNS = 3;
    /** Statement timeouts in a row, with the server answering others in time, that make a metric slow on its own. */
    static final int OVERRUNS_BEFORE_SOLO = 3;

    private final CollectionPlan config;
    private final SourceSession session;
    private final SoloLane solo;
    private final SuspectGroups suspects;
    private final MetricLedger ledger;
    /** The instance this source is a member of; one that shares nothing when unknown ({@link Instance#alone()}). */
    private final Instance instance;
    /** Metrics of this tick that run their instance-wide variant. */
    /** Where this tick's results go: the measurements, the instance's shared results, the ledger. */
    private final TickDelivery delivery;
    /** Shared metrics this tick claimed the instance's fetch of ({@link io.pgharvest.reaper.instance.InstanceMetricCache#tryClaim}). */
    private final List<String> claimed = new ArrayList<>();
    private final ReaperMeters meters;
    private final ReaperMeters.SourceMeters sourceMeters;
    private final Duration defaultTimeout;
    private final int maxExtraRoundTrips;
    private Map<String, Duration> intervals;
    private Instant gridPoint;
    private boolean pipelineFailed;
    private int extraRoundTrips;
    /** Whether the server answered a round trip of this tick in time: with rows or a metric's own error. */
    private boolean answered;
    private SQLException timeout;
    /** Suspects that timed out alone: their own fault only if the server answered others. */
    private final List<FailedRun> timedOutAlone = new ArrayList<>();

    public TickRunner(CollectionPlan config, SourceSession session, SoloLane solo, MetricLedger ledger,
            Instance instance, String database, ReaperMeters meters, ReaperMeters.SourceMeters sourceMeters,
            Duration defaultTimeout, int maxExtraRoundTrips) {
        this.config = config;
        this.session = session;
        this.solo = solo;
        this.suspects = solo.suspects();
        this.ledger = ledger;
        this.instance = instance;
        this.meters = meters;
        this.sourceMeters = sourceMeters;
        this.defaultTimeout = defaultTimeout;
        this.maxExtraRoundTrips = maxExtraRoundTrips;
        this.delivery = new TickDelivery(config, instance, database, ledger, sourceMeters);
    }

    /**
     * Runs the tick. Whatever happens, {@link #measurements()} holds what was fetched, also when
     * the session is lost halfway through.
     *
     * @param intervals the interval of every due metric (for cache freshness and back-off)
     * @param now the tick's start, the collection time of its measurements
     * @param gridPoint the grid point the tick serves, for back-off decisions
     */
    public void run(List<String> due, Map<String, Duration> intervals, Instant now, Instant gridPoint)
            throws SourceDownException {
        this.gridPoint = gridPoint;
        this.intervals = intervals;
        int major = session.facts().majorVersion();
        var healthy = new ArrayList<MetricQuery>();
        var dueSuspects = new ArrayList<MetricQuery>();
        var soloRuns = new ArrayList<MetricQuery>();
        int backoff = 0;
        int waiting = 0;
        for (String metric : due) {
            MetricDefinition definition = config.definitions().get(metric);
            String sql = definition == null ? null : definition.sqlFor(major).orElse(null);
            if (sql == null) {
                continue; // not active for this server; the reaper reports it in the status
            }
            boolean shared = definition.instanceLevel();
            String instanceSql = delivery.fanOutSql(metric, definition, major);
            if ((shared || instanceSql != null) && delivery.deliverCached(metric, definition, intervals.get(metric), now)) {
                continue;
            }
            var query = new MetricQuery(metric, instanceSql != null ? instanceSql : sql, timeoutOf(definition));
            NotReadingException refused = session.refusal(query);
            List<MetricQuery> lane = null;
            if (refused != null) {
                // Known without a round trip: never sent, never a suspect.
                solo.fail(metric, intervals.get(metric), gridPoint, false);
                ledger.failed(metric, describe(query, refused, false), now);
                sourceMeters.fetch(ReaperMeters.ERROR, 1);
            } else if (suspects.contains(metric)) {
                lane = dueSuspects;
            } else if (!solo.contains(metric)
                    && !(instance.missesObjectOnAMember(metric) && solo.startAlone(metric))) {
                lane = healthy;
            } else if (solo.readyToRetry(metric, gridPoint)) {
                lane = soloRuns;
            } else {
                backoff++;
            }
            if (lane == null) {
                continue;
            }
            if (shared || instanceSql != null) {
                // Only the source that will send it claims the fetch (not one refusing it or backing off).
                if (!instance.results().tryClaim(metric, now, now.plus(intervals.get(metric)))) {
                    waiting++; // another source of the instance is fetching it: delivered on the next tick
                    continue;
                }
                claimed.add(metric);
            }
            if (instanceSql != null) {
                delivery.fanningOut(metric);
            }
            lane.add(query);
        }
        sourceMeters.fetch(ReaperMeters.BACKOFF, backoff);
        sourceMeters.fetch(ReaperMeters.DEFERRED, waiting);
        healthy.sort(Comparator.comparing(MetricQuery::metric, ledger.pipelineOrder())); // stable: due order kept
        try {
            runHealthy(healthy, dueSuspects, now);
            // No search when the server answered nothing in time: more queries would only add to its load.
            if (timeout == null || answered) {
                isolate(dueSuspects, now);
            } else {
                sourceMeters.fetch(ReaperMeters.DEFERRED, dueSuspects.size());
            }
            runSoloRetries(soloRuns, now);
            settleTimeouts(now);
        } finally {
            // Fetched and shared, failed, or not run this tick: the next source due may fetch it.
            for (String metric : claimed) {
                instance.results().release(metric);
            }
        }
    }

    /** The measurements fetched so far, in no particular order. */
    public List<Measurement> measurements() {
        return delivery.measurements();
    }

    /**
     * The healthy metrics in one round trip. When it fails part-way and the session names the
     * failing metric ({@link RoundTrip}), the rows before it are delivered, that metric is set aside
     * ({@link #setAsideNamed}) and the metrics after it, which never ran, are sent again at once,
     * within the allowance of extra round trips: a continuation sends no statement the server ran
     * before. After an overrun it is sent only when the server answered in time, fewer than
     * {@link #MAX_OVERRUNS} overruns happened in the tick, and the rest holds a metric that did not
     * overrun lately; what is left waits for the next tick, still healthy.
     *
     * <p>When the session cannot name the failing metric but the server's error points at one
     * ({@link SourceSession#culprit}), that metric moves to the solo lane and the rest is sent again
     * while the allowance lasts. When nothing points at a metric, every metric of the round trip
     * becomes a suspect: one new group, due on this tick with the other due suspects.
     */
    private void runHealthy(List<MetricQuery> queries, List<MetricQuery> dueSuspects, Instant now)
            throws SourceDownException {
        if (queries.isEmpty()) {
            return;
        }
        long started = System.nanoTime();
        Sent sent = runGroup(queries, now);
        if (sent.failure() == null) {
            meters.batch(queries.size(), Duration.ofNanos(System.nanoTime() - started));
            return;
        }
        pipelineFailed = timeout == null;
        int overruns = 0;
        while (sent.failed() != null) {
            setAsideNamed(sent, now);
            if (sent.notRun().isEmpty()) {
                return;
            }
            // After an overrun, only a rest that holds a metric that did not overrun lately is worth
            // a round trip now: the others wait behind it in the pipeline's order, one per tick.
            if (!mayAddRoundTrip() || sent.slow() && (++overruns >= MAX_OVERRUNS
                    || sent.notRun().stream().allMatch(q -> ledger.overran(q.metric())))) {
                sourceMeters.fetch(ReaperMeters.DEFERRED, sent.notRun().size());
                return;
            }
            extraRoundTrips++;
            sent = runGroup(sent.notRun(), now);
            if (sent.failure() == null) {
                return;
            }
        }
        var remaining = new ArrayList<>(sent.notRun());
        SQLException failure = sent.failure();
        while (setAsidePointedCulprit(failure, remaining, now).isPresent()) {
            if (remaining.isEmpty()) {
                return;
            }
            if (!mayAddRoundTrip()) {
                sourceMeters.fetch(ReaperMeters.DEFERRED, remaining.size());
                return;
            }
            extraRoundTrips++;
            Sent again = runGroup(remaining, now);
            if (again.failure() == null) {
                return;
            }
            if (again.failed() != null) { // a session that names failures does so for every round trip
                setAsideNamed(again, now);
                sourceMeters.fetch(ReaperMeters.DEFERRED, again.notRun().size());
                return;
            }
            remaining = new ArrayList<>(again.notRun());
            failure = again.failure();
        }
        // Which statement failed is unknown, and so is every result: all are suspects now.
        suspects.failedTogether(remaining.stream().map(MetricQuery::metric).toList());
        dueSuspects.addAll(remaining);
    }

    /**
     * Sets aside the metric a round trip's failure belongs to, named by the session. Its own error
     * (an object this server lacks, a runtime error) moves it to the solo lane at once. An overrun
     * does not: on a saturated server any metric may be the one running when its limit passes, and
     * a lock another session holds is nobody's fault here. The metric stays in the pipeline, behind
     * the ones that did not overrun ({@link MetricLedger#pipelineOrder}); only a metric that overran
     * its statement timeout {@link #OVERRUNS_BEFORE_SOLO} times in a row while the server answered
     * others in time is slow on its own and moves to the solo lane, to run alone with back-off.
     */
    private void setAsideNamed(Sent sent, Instant now) {
        MetricQuery query = sent.failed();
        SQLException e = sent.failure();
        if (session.endedByServer(e)) {
            return; // blamed already (blameForLostSession)
        }
        if (sent.slow()) {
            int inARow = ledger.overran(query.metric(), now);
            if (answered && inARow >= OVERRUNS_BEFORE_SOLO && !session.waitedForLock(e)) {
                solo.fail(query.metric(), intervals.get(query.metric()), gridPoint, false);
            }
        } else {
            boolean missing = MissingObject.causedBy(e);
            if (missing) {
                instance.recordMissingObject(query.metric());
            }
            solo.fail(query.metric(), intervals.get(query.metric()), gridPoint, missing);
        }
        ledger.failed(query.metric(), describe(query, e, sent.slow()), now);
    }

    /**
     * Moves the metric the server's error points at, if any, from {@code sent} to the solo lane
     * with that error (its SQL is wrong for this server: no trial of its own is needed).
     *
     * @return the metric the error pointed at, or empty
     */
    private Optional<String> setAsidePointedCulprit(SQLException failure, List<MetricQuery> sent, Instant now) {
        return session.culprit(failure, sent).map(query -> {
            sent.remove(query);
            instance.recordMissingObject(query.metric());
            solo.fail(query.metric(), intervals.get(query.metric()), gridPoint, MissingObject.causedBy(failure));
            ledger.failed(query.metric(), describe(query, failure, false), now);
            return query.metric();
        });
    }

    /**
     * Takes the search for the culprits as far as the tick's allowance of extra round trips goes,
     * one trial per round trip ({@link SuspectGroups#nextTrial}). A half that fails is halved
     * again at once while round trips are left, so with an allowance of at least twice the
     * number of suspects every culprit is found in the tick that failed. A suspect runs alone at
     * most once per tick. Suspects not tried wait for the next tick, undelivered.
     */
    private void isolate(List<MetricQuery> due, Instant now) throws SourceDownException {
        var candidates = new LinkedHashMap<String, MetricQuery>();
        due.forEach(query -> candidates.put(query.metric(), query));
        var tried = new HashSet<String>();
        List<String> trial;
        while (mayAddRoundTrip() && !(trial = suspects.nextTrial(candidates.keySet())).isEmpty()) {
            tried.addAll(trial);
            extraRoundTrips++;
            if (trial.size() == 1) {
                runAlone(candidates.remove(trial.getFirst()), now, true);
                continue;
            }
            var sent = new ArrayList<>(trial.stream().map(candidates::get).toList());
            Sent result = runGroup(sent, now);
            Optional<String> pointed;
            if (result.failure() == null) {
                trial.forEach(candidates::remove); // delivered
            } else if (result.failed() != null) {
                // Named: the ones before it delivered, the ones after it stay in their group,
                // no longer known to fail: tried whole next.
                setAsideNamed(result, now);
                trial.stream().filter(m -> result.notRun().stream().noneMatch(q -> q.metric().equals(m)))
                        .forEach(candidates::remove);
            } else if ((pointed = setAsidePointedCulprit(result.failure(), sent, now)).isPresent()) {
                // The rest of the trial stays in its group, no longer known to fail: tried whole next.
                candidates.remove(pointed.get());
            } else {
                suspects.failedTogether(trial); // one of them is a culprit: halved next
            }
        }
        sourceMeters.fetch(ReaperMeters.DEFERRED, due.size() - tried.size());
    }

    /**
     * Whether the tick may add a round trip: within the allowance, and not when the server is
     * slow (a timeout with no round trip answered: more queries would only add to its load).
     */
    private boolean mayAddRoundTrip() {
        return extraRoundTrips < maxExtraRoundTrips && (timeout == null || answered);
    }

    /**
     * Runs {@code queries} as one pipeline and delivers what came back, also from a round trip that
     * failed part-way ({@link SourceSession#runKeeping}); a lost session ends the tick after that.
     */
    private Sent runGroup(List<MetricQuery> queries, Instant now) throws SourceDownException {
        RoundTrip trip = session.runKeeping(queries);
        sourceMeters.roundTrip();
        int delivered = 0;
        var notRun = new ArrayList<MetricQuery>();
        for (int i = 0; i < queries.size(); i++) {
            FetchedRows rows = trip.rows().get(i);
            if (rows != null) {
                suspects.cleared(queries.get(i).metric());
                delivery.deliver(queries.get(i).metric(), rows, now);
                delivered++;
            } else if (i != trip.failedAt()) {
                notRun.add(queries.get(i));
            }
        }
        if (delivered > 0) {
            answered = true; // in time, whatever happened after
            sourceMeters.fetch(ReaperMeters.OK, delivered);
        }
        SQLException e = trip.failure();
        if (e == null) {
            return Sent.WHOLE;
        }
        MetricQuery failed = trip.knowsFailedQuery() ? queries.get(trip.failedAt()) : null;
        blameForLostSession(e, failed != null ? List.of(failed) : notRun, now);
        boolean slow = failureOf(e) == SourceSession.Failure.SLOW;
        int failing = failed != null ? 1 : notRun.size();
        if (slow) {
            timeout = e;
            sourceMeters.fetch(ReaperMeters.TIMEOUT, failing);
        } else {
            answered = true; // with a metric's own error, in time
            sourceMeters.fetch(ReaperMeters.ERROR, failing);
        }
        return new Sent(e, failed, slow, notRun);
    }

    /**
     * A round trip as the tick sees it.
     *
     * @param failure null when every query delivered
     * @param failed the query the failure belongs to, when the session named it; else null
     * @param slow whether the failure was a timeout
     * @param notRun the queries without rows besides {@code failed}: never run when {@code failed}
     *     is known, under suspicion otherwise
     */
    private record Sent(SQLException failure, MetricQuery failed, boolean slow, List<MetricQuery> notRun) {
        static final Sent WHOLE = new Sent(null, null, false, List.of());
    }

    /** Solo metrics whose back-off has passed, the longest waiting first, while round trips are left. */
    private void runSoloRetries(List<MetricQuery> queries, Instant now) throws SourceDownException {
        queries.sort(Comparator.comparing(q -> solo.retryAt(q.metric())));
        int deferred = 0;
        for (MetricQuery query : queries) {
            if (mayAddRoundTrip()) {
                extraRoundTrips++;
                runAlone(query, now, false);
            } else {
                deferred++; // still ready: it runs on a later tick
            }
        }
        sourceMeters.fetch(ReaperMeters.DEFERRED, deferred);
    }

    /**
     * Runs one query alone.
     *
     * @param suspect whether it is a suspect (a timeout is then settled at the end of the tick)
     *     rather than a metric already in the solo lane
     */
    private void runAlone(MetricQuery query, Instant now, boolean suspect) throws SourceDownException {
        try {
            AloneRun run = session.runAlone(query);
            sourceMeters.roundTrip();
            answered = true;
            suspects.cleared(query.metric());
            if (run.severalStatements()) {
                solo.pin(query.metric());
            } else {
                solo.recovered(query.metric());
            }
            delivery.deliver(query.metric(), run.rows(), now);
            sourceMeters.fetch(ReaperMeters.OK, 1);
        } catch (SQLException e) {
            sourceMeters.roundTrip();
            blameForLostSession(e, List.of(query), now);
            boolean timedOut = failureOf(e) == SourceSession.Failure.SLOW;
            sourceMeters.fetch(timedOut ? ReaperMeters.TIMEOUT : ReaperMeters.ERROR, 1);
            if (timedOut) {
                timeout = e;
            } else {
                answered = true; // with the metric's own error, in time
            }
            if (timedOut && suspect) {
                timedOutAlone.add(new FailedRun(query, e));
            } else {
                solo.fail(query.metric(), intervals.get(query.metric()), gridPoint, MissingObject.causedBy(e));
                ledger.failed(query.metric(), describe(query, e, timedOut), now);
            }
        }
    }

    /**
     * A suspect that timed out alone is slow on its own when the server answered another round
     * trip of this tick; otherwise the whole server was slow and it stays a suspect, tried after
     * the other suspects next time (first, it would again stop the search before any answer).
     */
    private void settleTimeouts(Instant now) {
        for (FailedRun run : timedOutAlone) {
            MetricQuery query = run.query();
            if (answered) {
                solo.fail(query.metric(), intervals.get(query.metric()), gridPoint, false);
            } else {
                suspects.requeue(query.metric());
            }
            ledger.failed(query.metric(), describe(query, run.error(), true), now);
        }
    }

    /** Why this tick found the server slow (a timeout and no round trip answered), or null. */
    public String slowReason() {
        if (timeout == null || answered) {
            return null;
        }
        return "server slow: no round trip of the tick answered in time [SQLState " + timeout.getSQLState() + "]: "
                + BoundedText.messageOf(timeout);
    }

    /** Round trips this tick added beyond the healthy pipeline (isolation and solo retries). */
    int extraRoundTrips() {
        return extraRoundTrips;
    }

    private record FailedRun(MetricQuery query, SQLException error) {
    }

    /**
     * Whether the pipeline failed on this tick: a metric that worked before may fail because the
     * server was promoted or demoted. Failures of already isolated metrics do not count, so a
     * permanently broken metric does not cost an extra round trip per tick.
     */
    public boolean pipelineFailed() {
        return pipelineFailed;
    }

    private Duration timeoutOf(MetricDefinition definition) {
        Integer seconds = definition.statementTimeoutSeconds();
        return seconds == null ? defaultTimeout : Duration.ofSeconds(seconds);
    }

    /**
     * The server terminated the session while {@code sent} ran ({@code 57P01}: what
     * {@code pg_terminate_backend} of its own backend causes): one of them may be the cause, and
     * would otherwise take the source down on every tick. They become suspects (narrowed down on
     * the next attempt, after the reconnect, like a failed pipeline), a single one goes to the solo
     * lane. A server shutdown also terminates sessions this way; then the innocent suspects are
     * cleared by their next trial.
     */
    private void blameForLostSession(SQLException e, List<MetricQuery> sent, Instant now) {
        if (!session.endedByServer(e) || sent.isEmpty()) {
            return;
        }
        if (sent.size() == 1) {
            MetricQuery query = sent.getFirst();
            solo.fail(query.metric(), intervals.get(query.metric()), gridPoint, false);
            ledger.failed(query.metric(), "the server terminated the session while metric " + query.metric()
                    + " ran alone [SQLState " + e.getSQLState() + "]: " + BoundedText.messageOf(e), now);
        } else {
            suspects.failedTogether(sent.stream().map(MetricQuery::metric).toList());
        }
    }

    /** How {@code e} bears on the tick; a lost session ends it. */
    private SourceSession.Failure failureOf(SQLException e) throws SourceDownException {
        SourceSession.Failure failure = session.classify(e);
        if (failure == SourceSession.Failure.BROKEN) {
            throw new SourceDownException(config.name(), e);
        }
        return failure;
    }

    private String describe(MetricQuery query, SQLException e, boolean timedOut) {
        String reason = timedOut ? "timed out after " + query.statementTimeout().toMillis() + " ms" : "failed";
        return "metric " + query.metric() + " " + reason + " [SQLState " + e.getSQLState() + "]: " + BoundedText.messageOf(e);
    }
}
