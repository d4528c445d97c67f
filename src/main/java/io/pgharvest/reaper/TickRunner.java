package io.pgharvest.reaper;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs the metrics due on one tick against one session: instance-level and fanned-out results
 * come from the {@link Instance}'s shared results when fresh, healthy metrics go in one pipelined
 * round trip, isolated metrics run alone. A fanned-out metric that this source fetches runs its
 * instance-wide variant; the result is split per database, shared, and this source delivers its
 * own database's share.
 *
 * <p>Never makes a struggling server worse. A pipeline that fails does not tell which statement
 * failed; its metrics become suspects and are narrowed down with at most
 * {@code maxExtraRoundTrips} more round trips per tick (the suspects split into that many
 * groups; a group that succeeds is delivered and cleared, a suspect that fails alone moves to
 * the solo lane), so a source never adds more than that many round trips to a tick, whatever
 * fails. Retries of solo metrics share the same allowance. A failure that says the server is
 * slow (statement or lock timeout) is not a metric's own: it costs no extra round trip in that
 * tick, and a metric that times out alone is only moved to the solo lane when another round
 * trip of the same tick succeeded (the server answered the others in time). A tick with a
 * timeout and no successful round trip is reported as slow ({@link #slowReason()}); the reaper
 * then stretches the source's schedule.
 *
 * <p>Throws {@link SourceDownException} only when the session itself is gone; a failing query
 * never escapes as an exception.
 */
final class TickRunner {

    private final ReaperConfig config;
    private final SourceSession session;
    private final SoloLane solo;
    private final MetricLedger ledger;
    /** The instance this source is a member of; null when the instance is unknown (nothing shared). */
    private final Instance instance;
    private final String database;
    /** Metrics of this tick that run their instance-wide variant. */
    private final java.util.Set<String> fannedOut = new java.util.HashSet<>();
    private final ReaperMeters meters;
    private final ReaperMeters.SourceMeters sourceMeters;
    private final Duration defaultTimeout;
    private final int maxExtraRoundTrips;
    private final List<Measurement> out = new ArrayList<>();
    private Map<String, Duration> intervals;
    private Instant gridPoint;
    private boolean pipelineFailed;
    private int extraRoundTrips;
    private boolean answered;
    private SQLException timeout;
    /** Suspects that timed out alone: their own fault only if the server answered others. */
    private final List<FailedRun> timedOutAlone = new ArrayList<>();

    TickRunner(ReaperConfig config, SourceSession session, SoloLane solo, MetricLedger ledger,
            Instance instance, String database, ReaperMeters meters, ReaperMeters.SourceMeters sourceMeters,
            Duration defaultTimeout, int maxExtraRoundTrips) {
        this.config = config;
        this.session = session;
        this.solo = solo;
        this.ledger = ledger;
        this.instance = instance;
        this.database = database;
        this.meters = meters;
        this.sourceMeters = sourceMeters;
        this.defaultTimeout = defaultTimeout;
        this.maxExtraRoundTrips = maxExtraRoundTrips;
    }

    /**
     * Runs the tick. Whatever happens, {@link #measurements()} holds what was fetched, also when
     * the session is lost halfway through.
     *
     * @param intervals the interval of every due metric (for cache freshness and back-off)
     * @param now the tick's start, the collection time of its measurements
     * @param gridPoint the grid point the tick serves, for back-off decisions
     */
    void run(List<String> due, Map<String, Duration> intervals, Instant now, Instant gridPoint)
            throws SourceDownException {
        this.gridPoint = gridPoint;
        this.intervals = intervals;
        int major = session.facts().majorVersion();
        var healthy = new ArrayList<MetricQuery>();
        var suspects = new ArrayList<MetricQuery>();
        var soloRuns = new ArrayList<MetricQuery>();
        int backoff = 0;
        for (String metric : due) {
            MetricDefinition definition = config.definitions().get(metric);
            String sql = definition == null ? null : definition.sqlFor(major).orElse(null);
            if (sql == null) {
                continue; // not active for this server; the reaper reports it in the status
            }
            boolean shared = definition.instanceLevel() && instance != null;
            String instanceSql = fanOutSql(metric, definition, major);
            if ((shared || instanceSql != null) && deliverCached(metric, definition, intervals.get(metric), now)) {
                continue;
            }
            if (instanceSql != null) {
                fannedOut.add(metric);
                sql = instanceSql;
            }
            var query = new MetricQuery(metric, sql, timeoutOf(definition));
            QueryPipeline.NotReadingException refused = session.pipeline().refusal(query);
            if (refused != null) {
                // Known without a round trip: never sent, never a suspect.
                solo.fail(metric, intervals.get(metric), gridPoint);
                ledger.failed(metric, describe(query, refused, false), now);
                sourceMeters.fetch(ReaperMeters.ERROR, 1);
            } else if (solo.isSuspect(metric)) {
                suspects.add(query);
            } else if (!solo.contains(metric)) {
                healthy.add(query);
            } else if (solo.readyToRetry(metric, gridPoint)) {
                soloRuns.add(query);
            } else {
                backoff++;
            }
        }
        sourceMeters.fetch(ReaperMeters.BACKOFF, backoff);
        runHealthy(healthy, suspects, now);
        if (timeout == null) {
            isolate(suspects, now);
        } else {
            sourceMeters.fetch(ReaperMeters.DEFERRED, suspects.size());
        }
        runSoloRetries(soloRuns, now);
        settleTimeouts(now);
    }

    /** The measurements fetched so far, in no particular order. */
    List<Measurement> measurements() {
        return out;
    }

    /** The healthy metrics in one round trip; when it fails they all become suspects. */
    private void runHealthy(List<MetricQuery> queries, List<MetricQuery> suspects, Instant now)
            throws SourceDownException {
        if (queries.isEmpty()) {
            return;
        }
        long started = System.nanoTime();
        SQLException failure = runGroup(queries, now);
        if (failure == null) {
            meters.batch(queries.size(), Duration.ofNanos(System.nanoTime() - started));
            return;
        }
        // Which statement failed is unknown, and so is every result: all are suspects now.
        pipelineFailed = timeout == null;
        for (MetricQuery query : queries) {
            solo.suspect(query.metric());
        }
        var all = new ArrayList<>(queries);
        all.addAll(suspects);
        suspects.clear();
        suspects.addAll(all);
    }

    /**
     * Narrows the suspects down within the tick's allowance of extra round trips: they are split
     * into as many groups as round trips are left (one each when enough are left). Suspects
     * left over wait for the next tick, undelivered.
     */
    private void isolate(List<MetricQuery> suspects, Instant now) throws SourceDownException {
        int rest = suspects.size();
        int from = 0;
        while (from < suspects.size() && extraRoundTrips < maxExtraRoundTrips && (timeout == null || answered)) {
            int groups = maxExtraRoundTrips - extraRoundTrips;
            int size = (rest + groups - 1) / groups;
            extraRoundTrips++;
            List<MetricQuery> group = suspects.subList(from, from + size);
            if (size == 1) {
                runAlone(group.getFirst(), now, true);
            } else {
                runGroup(group, now);
            }
            from += size;
            rest -= size;
        }
        sourceMeters.fetch(ReaperMeters.DEFERRED, rest);
    }

    /** Runs {@code queries} as one pipeline; returns the failure, or null when all delivered. */
    private SQLException runGroup(List<MetricQuery> queries, Instant now) throws SourceDownException {
        try {
            List<FetchedRows> results = session.pipeline().run(queries);
            sourceMeters.roundTrip();
            answered = true;
            for (int i = 0; i < queries.size(); i++) {
                solo.cleared(queries.get(i).metric());
                deliver(queries.get(i).metric(), results.get(i), now);
            }
            sourceMeters.fetch(ReaperMeters.OK, queries.size());
            return null;
        } catch (SQLException e) {
            sourceMeters.roundTrip();
            if (failureOf(e) == SourceSession.Failure.SLOW) {
                timeout = e;
                sourceMeters.fetch(ReaperMeters.TIMEOUT, queries.size());
            } else {
                sourceMeters.fetch(ReaperMeters.ERROR, queries.size());
            }
            return e;
        }
    }

    /** Solo metrics whose back-off has passed, the longest waiting first, while round trips are left. */
    private void runSoloRetries(List<MetricQuery> queries, Instant now) throws SourceDownException {
        queries.sort(java.util.Comparator.comparing(q -> solo.retryAt(q.metric())));
        int deferred = 0;
        for (MetricQuery query : queries) {
            if (extraRoundTrips < maxExtraRoundTrips && (timeout == null || answered)) {
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
            QueryPipeline.AloneRun run = session.pipeline().runAlone(query);
            sourceMeters.roundTrip();
            answered = true;
            solo.cleared(query.metric());
            if (run.severalStatements()) {
                solo.pin(query.metric());
            } else {
                solo.recovered(query.metric());
            }
            deliver(query.metric(), run.rows(), now);
            sourceMeters.fetch(ReaperMeters.OK, 1);
        } catch (SQLException e) {
            sourceMeters.roundTrip();
            boolean timedOut = failureOf(e) == SourceSession.Failure.SLOW;
            sourceMeters.fetch(timedOut ? ReaperMeters.TIMEOUT : ReaperMeters.ERROR, 1);
            if (timedOut) {
                timeout = e;
            }
            if (timedOut && suspect) {
                timedOutAlone.add(new FailedRun(query, e));
            } else {
                solo.fail(query.metric(), intervals.get(query.metric()), gridPoint);
                ledger.failed(query.metric(), describe(query, e, timedOut), now);
            }
        }
    }

    /**
     * A suspect that timed out alone is slow on its own when the server answered another round
     * trip of this tick; otherwise the whole server was slow and it stays a suspect.
     */
    private void settleTimeouts(Instant now) {
        for (FailedRun run : timedOutAlone) {
            MetricQuery query = run.query();
            if (answered) {
                solo.fail(query.metric(), intervals.get(query.metric()), gridPoint);
            }
            ledger.failed(query.metric(), describe(query, run.error(), true), now);
        }
    }

    /** Why this tick found the server slow (a timeout and no round trip answered), or null. */
    String slowReason() {
        if (timeout == null || answered) {
            return null;
        }
        return "server slow: no round trip of the tick answered in time [SQLState " + timeout.getSQLState() + "]: "
                + timeout.getMessage();
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
    boolean pipelineFailed() {
        return pipelineFailed;
    }

    /** The instance-wide SQL to run for {@code metric} on this tick, or null to run it per database. */
    private String fanOutSql(String metric, MetricDefinition definition, int major) {
        if (instance == null || database == null || definition.instanceLevel() || !instance.fansOut(metric)) {
            return null;
        }
        return definition.instanceSqlFor(major).orElse(null);
    }

    private boolean deliverCached(String metric, MetricDefinition definition, Duration interval, Instant now) {
        var cached = instance.results().reusable(metric, interval, now, ledger.sharedDelivered(metric));
        if (cached.isEmpty()) {
            return false;
        }
        out.add(measurement(definition, cached.get().rowsFor(database), cached.get().fetchedAt()));
        ledger.deliveredShared(metric, cached.get());
        ledger.succeeded(metric, now);
        sourceMeters.fetch(ReaperMeters.CACHED, 1);
        return true;
    }

    private void deliver(String metric, FetchedRows rows, Instant now) {
        MetricDefinition definition = config.definitions().get(metric);
        FetchedRows own = rows;
        if (fannedOut.contains(metric)) {
            try {
                var entry = instance.results().putSplit(metric, now, FanOutSplit.byDatabase(metric, rows));
                ledger.deliveredShared(metric, entry);
                own = entry.rowsFor(database);
            } catch (IllegalArgumentException e) {
                ledger.failed(metric, e.getMessage(), now);
                return;
            }
        } else if (definition.instanceLevel() && instance != null) { // null: instance unknown, nothing shared
            ledger.deliveredShared(metric, instance.results().put(metric, now, rows));
        }
        out.add(measurement(definition, own, now));
        ledger.succeeded(metric, now);
    }

    private Measurement measurement(MetricDefinition definition, FetchedRows rows, Instant collectedAt) {
        Instant time = rows.reportedTime() != null ? rows.reportedTime() : collectedAt;
        return new Measurement(config.name(), definition.effectiveStorageName(), time, rows.rows(),
                config.source().tags());
    }

    private Duration timeoutOf(MetricDefinition definition) {
        Integer seconds = definition.statementTimeoutSeconds();
        return seconds == null ? defaultTimeout : Duration.ofSeconds(seconds);
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
        return "metric " + query.metric() + " " + reason + " [SQLState " + e.getSQLState() + "]: " + e.getMessage();
    }
}
