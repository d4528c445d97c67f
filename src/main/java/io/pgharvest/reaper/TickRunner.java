package io.pgharvest.reaper;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the metrics due on one tick against one session: instance-level and fanned-out results
 * come from the {@link Instance}'s shared results when fresh, healthy metrics go in one pipelined
 * round trip, isolated metrics run alone. A fanned-out metric that this source fetches runs its
 * instance-wide variant; the result is split per database, shared, and this source delivers its
 * own database's share. A failed pipeline is re-run one query at a time, once, to find the culprit; every good
 * result of the tick is still delivered, and the culprit moves to the solo lane.
 *
 * <p>Throws {@link SourceDownException} only when the session itself is gone; a failing query
 * never escapes as an exception.
 */
final class TickRunner {

    private static final String QUERY_CANCELED = "57014";

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
    private final List<Measurement> out = new ArrayList<>();
    private Instant gridPoint;
    private boolean pipelineFailed;

    TickRunner(ReaperConfig config, SourceSession session, SoloLane solo, MetricLedger ledger,
            Instance instance, String database, ReaperMeters meters, ReaperMeters.SourceMeters sourceMeters,
            Duration defaultTimeout) {
        this.config = config;
        this.session = session;
        this.solo = solo;
        this.ledger = ledger;
        this.instance = instance;
        this.database = database;
        this.meters = meters;
        this.sourceMeters = sourceMeters;
        this.defaultTimeout = defaultTimeout;
    }

    /**
     * Runs the tick. Whatever happens, {@link #measurements()} holds what was fetched, also when
     * the session is lost halfway through.
     *
     * @param intervals the interval of every due metric (for cache freshness and back-off)
     * @param now the tick's start, the collection time of its measurements
     * @param gridPoint the grid point the tick serves, for back-off decisions
     */
    void run(List<String> due, java.util.Map<String, Duration> intervals, Instant now, Instant gridPoint)
            throws SourceDownException {
        this.gridPoint = gridPoint;
        int major = session.facts().majorVersion();
        var pipeline = new ArrayList<MetricQuery>();
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
            if (!solo.contains(metric)) {
                pipeline.add(query);
            } else if (solo.readyToRetry(metric, gridPoint)) {
                soloRuns.add(query);
            } else {
                backoff++;
            }
        }
        sourceMeters.fetch(ReaperMeters.BACKOFF, backoff);
        runPipeline(pipeline, intervals, now);
        for (MetricQuery query : soloRuns) {
            runSolo(query, intervals.get(query.metric()), now);
        }
    }

    /** The measurements fetched so far, in no particular order. */
    List<Measurement> measurements() {
        return out;
    }

    private void runPipeline(List<MetricQuery> queries, java.util.Map<String, Duration> intervals, Instant now)
            throws SourceDownException {
        if (queries.isEmpty()) {
            return;
        }
        long started = System.nanoTime();
        try {
            List<FetchedRows> results = session.pipeline().run(queries);
            sourceMeters.roundTrip();
            meters.batch(queries.size(), Duration.ofNanos(System.nanoTime() - started));
            for (int i = 0; i < queries.size(); i++) {
                deliver(queries.get(i).metric(), results.get(i), now);
            }
            sourceMeters.fetch(ReaperMeters.OK, queries.size());
        } catch (SQLException e) {
            sourceMeters.roundTrip();
            failIfBroken(e);
            pipelineFailed = true;
            // The pipeline tells us neither which statement failed nor any result: find out,
            // once, by running each query alone.
            for (MetricQuery query : queries) {
                runSolo(query, intervals.get(query.metric()), now);
            }
        }
    }

    private void runSolo(MetricQuery query, Duration interval, Instant now) throws SourceDownException {
        try {
            QueryPipeline.AloneRun run = session.pipeline().runAlone(query);
            sourceMeters.roundTrip();
            if (run.severalStatements()) {
                solo.pin(query.metric());
            } else {
                solo.recovered(query.metric());
            }
            deliver(query.metric(), run.rows(), now);
            sourceMeters.fetch(ReaperMeters.OK, 1);
        } catch (SQLException e) {
            sourceMeters.roundTrip();
            failIfBroken(e);
            boolean timedOut = QUERY_CANCELED.equals(e.getSQLState());
            sourceMeters.fetch(timedOut ? ReaperMeters.TIMEOUT : ReaperMeters.ERROR, 1);
            solo.fail(query.metric(), interval, gridPoint);
            ledger.failed(query.metric(), describe(query, e, timedOut), now);
        }
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

    private void failIfBroken(SQLException e) throws SourceDownException {
        if (session.isBroken(e)) {
            throw new SourceDownException(config.name(), e);
        }
    }

    private String describe(MetricQuery query, SQLException e, boolean timedOut) {
        String reason = timedOut ? "timed out after " + query.statementTimeout().toMillis() + " ms" : "failed";
        return "metric " + query.metric() + " " + reason + " [SQLState " + e.getSQLState() + "]: " + e.getMessage();
    }
}
