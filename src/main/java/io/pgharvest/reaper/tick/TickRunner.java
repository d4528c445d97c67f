package io.pgharvest.reaper.tick;

import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.NotReadingException;
import io.pgharvest.kind.RoundTrip;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.reaper.instance.Instance;
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
 * <p>This class decides which metric goes in which lane and the order of the tick's round trips;
 * its parts own the rest: {@link RoundTrips} (sending each round trip, and what they say of the
 * server: answered in time, timed out, the allowance spent), {@link LaneBook} (who is to blame,
 * booked in the solo lane, the suspects and the ledger) and {@link TickDelivery} (the results).
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

    private final CollectionPlan config;
    private final SourceSession session;
    private final SoloLane solo;
    private final SuspectGroups suspects;
    private final MetricLedger ledger;
    /** The instance this source is a member of; one that shares nothing when unknown ({@link Instance#alone()}). */
    private final Instance instance;
    /** Where this tick's results go: the measurements, the instance's shared results, the ledger. */
    private final TickDelivery delivery;
    private final ReaperMeters meters;
    private final ReaperMeters.SourceMeters sourceMeters;
    private final Duration defaultTimeout;
    private final int maxExtraRoundTrips;
    /** Made when the tick runs (they need its intervals and grid point). */
    private LaneBook book;
    private RoundTrips trips;
    private boolean pipelineFailed;

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
        book = new LaneBook(session, solo, ledger, instance, intervals, gridPoint);
        trips = new RoundTrips(config.name(), session, delivery, book, sourceMeters, maxExtraRoundTrips);
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
                book.refused(query, refused, now);
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
            // Only the source that will send it claims the fetch (not one refusing it or backing off).
            if ((shared || instanceSql != null) && !delivery.claim(metric, now, intervals.get(metric))) {
                waiting++; // another source of the instance is fetching it: delivered on the next tick
                continue;
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
            if (!trips.serverSlow()) {
                isolate(dueSuspects, now);
            } else {
                sourceMeters.fetch(ReaperMeters.DEFERRED, dueSuspects.size());
            }
            runSoloRetries(soloRuns, now);
            book.settleTimeouts(trips.answered(), now);
        } finally {
            delivery.releaseClaims();
        }
    }

    /** The measurements fetched so far, in no particular order. */
    public List<Measurement> measurements() {
        return delivery.measurements();
    }

    /**
     * The healthy metrics in one round trip. When it fails part-way and the session names the
     * failing metric ({@link RoundTrip}), the rows before it are delivered, that metric is set aside
     * ({@link LaneBook#setAsideNamed}) and the metrics after it, which never ran, are sent again at once,
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
        RoundTrips.Sent sent = trips.group(queries, now);
        if (sent.failure() == null) {
            meters.batch(queries.size(), Duration.ofNanos(System.nanoTime() - started));
            return;
        }
        pipelineFailed = !trips.timedOut();
        int overruns = 0;
        while (sent.failed() != null) {
            book.setAsideNamed(sent.failed(), sent.failure(), sent.slow(), trips.answered(), now);
            if (sent.notRun().isEmpty()) {
                return;
            }
            // After an overrun, only a rest that holds a metric that did not overrun lately is worth
            // a round trip now: the others wait behind it in the pipeline's order, one per tick.
            if (!trips.mayAdd() || sent.slow() && (++overruns >= MAX_OVERRUNS
                    || sent.notRun().stream().allMatch(q -> ledger.overran(q.metric())))) {
                sourceMeters.fetch(ReaperMeters.DEFERRED, sent.notRun().size());
                return;
            }
            trips.spend();
            sent = trips.group(sent.notRun(), now);
            if (sent.failure() == null) {
                return;
            }
        }
        var remaining = new ArrayList<>(sent.notRun());
        SQLException failure = sent.failure();
        while (book.setAsidePointedCulprit(failure, remaining, now).isPresent()) {
            if (remaining.isEmpty()) {
                return;
            }
            if (!trips.mayAdd()) {
                sourceMeters.fetch(ReaperMeters.DEFERRED, remaining.size());
                return;
            }
            trips.spend();
            RoundTrips.Sent again = trips.group(remaining, now);
            if (again.failure() == null) {
                return;
            }
            if (again.failed() != null) { // a session that names failures does so for every round trip
                book.setAsideNamed(again.failed(), again.failure(), again.slow(), trips.answered(), now);
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
        while (trips.mayAdd() && !(trial = suspects.nextTrial(candidates.keySet())).isEmpty()) {
            tried.addAll(trial);
            trips.spend();
            if (trial.size() == 1) {
                trips.alone(candidates.remove(trial.getFirst()), now, true);
                continue;
            }
            var sent = new ArrayList<>(trial.stream().map(candidates::get).toList());
            RoundTrips.Sent result = trips.group(sent, now);
            Optional<String> pointed;
            if (result.failure() == null) {
                trial.forEach(candidates::remove); // delivered
            } else if (result.failed() != null) {
                // Named: the ones before it delivered, the ones after it stay in their group,
                // no longer known to fail: tried whole next.
                book.setAsideNamed(result.failed(), result.failure(), result.slow(), trips.answered(), now);
                trial.stream().filter(m -> result.notRun().stream().noneMatch(q -> q.metric().equals(m)))
                        .forEach(candidates::remove);
            } else if ((pointed = book.setAsidePointedCulprit(result.failure(), sent, now)).isPresent()) {
                // The rest of the trial stays in its group, no longer known to fail: tried whole next.
                candidates.remove(pointed.get());
            } else {
                suspects.failedTogether(trial); // one of them is a culprit: halved next
            }
        }
        sourceMeters.fetch(ReaperMeters.DEFERRED, due.size() - tried.size());
    }

    /** Solo metrics whose back-off has passed, the longest waiting first, while round trips are left. */
    private void runSoloRetries(List<MetricQuery> queries, Instant now) throws SourceDownException {
        queries.sort(Comparator.comparing(q -> solo.retryAt(q.metric())));
        int deferred = 0;
        for (MetricQuery query : queries) {
            if (trips.mayAdd()) {
                trips.spend();
                trips.alone(query, now, false);
            } else {
                deferred++; // still ready: it runs on a later tick
            }
        }
        sourceMeters.fetch(ReaperMeters.DEFERRED, deferred);
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

    /** Why this tick found the server slow (a timeout and no round trip answered), or null. */
    public String slowReason() {
        return trips == null ? null : trips.slowReason();
    }
}
