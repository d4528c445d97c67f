package io.pgharvest.reaper;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.MetricDefinition;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the metrics due on one tick against one session: instance-level results come from the
 * shared cache when fresh, healthy metrics go in one pipelined round trip, isolated metrics run
 * alone. A failed pipeline is re-run one query at a time, once, to find the culprit; every good
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
    private final InstanceMetricCache cache;
    private final ReaperMeters meters;
    private final ReaperMeters.SourceMeters sourceMeters;
    private final Duration defaultTimeout;
    private final String instanceKey;
    private final List<Measurement> out = new ArrayList<>();
    private Instant gridPoint;
    private boolean pipelineFailed;

    TickRunner(ReaperConfig config, SourceSession session, SoloLane solo, MetricLedger ledger,
            InstanceMetricCache cache, ReaperMeters meters, ReaperMeters.SourceMeters sourceMeters,
            Duration defaultTimeout, String instanceKey) {
        this.config = config;
        this.session = session;
        this.solo = solo;
        this.ledger = ledger;
        this.cache = cache;
        this.meters = meters;
        this.sourceMeters = sourceMeters;
        this.defaultTimeout = defaultTimeout;
        this.instanceKey = instanceKey;
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
            if (definition.instanceLevel() && instanceKey != null
                    && deliverCached(metric, definition, intervals.get(metric), now)) {
                continue;
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

    private boolean deliverCached(String metric, MetricDefinition definition, Duration interval, Instant now) {
        var cached = cache.reusable(instanceKey, metric, interval, now, ledger.sharedDelivered(metric));
        if (cached.isEmpty()) {
            return false;
        }
        out.add(measurement(definition, cached.get().rows(), cached.get().fetchedAt()));
        ledger.deliveredShared(metric, cached.get());
        ledger.succeeded(metric, now);
        sourceMeters.fetch(ReaperMeters.CACHED, 1);
        return true;
    }

    private void deliver(String metric, FetchedRows rows, Instant now) {
        MetricDefinition definition = config.definitions().get(metric);
        if (definition.instanceLevel() && instanceKey != null) { // null: instance unknown, nothing shared
            ledger.deliveredShared(metric, cache.put(instanceKey, metric, now, rows));
        }
        out.add(measurement(definition, rows, now));
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
