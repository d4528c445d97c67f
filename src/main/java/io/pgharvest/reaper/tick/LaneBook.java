package io.pgharvest.reaper.tick;

import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.BoundedText;
import io.pgharvest.reaper.instance.Instance;
import io.pgharvest.reaper.isolation.MissingObject;
import io.pgharvest.reaper.isolation.SoloLane;
import io.pgharvest.reaper.isolation.SuspectGroups;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Books what one tick's round trips say of each metric in the state that outlives the tick: the
 * solo lane and its back-off ({@link SoloLane}), the suspect groups ({@link SuspectGroups}), the
 * ledger's failures ({@link MetricLedger}) and the instance's missing objects. Exists so that the
 * rules of who is to blame (a metric's own error, an overrun, a server that ended the session, a
 * timeout settled only at the tick's end) are in one place, apart from {@link TickRunner}'s order of
 * round trips; the suspects that timed out alone are its one state of the tick's own.
 *
 * <p>Not thread-safe: one per tick, on the reaper's thread.
 */
final class LaneBook {

    /** Statement timeouts in a row, with the server answering others in time, that make a metric slow on its own. */
    static final int OVERRUNS_BEFORE_SOLO = 3;

    private final SourceSession session;
    private final SoloLane solo;
    private final SuspectGroups suspects;
    private final MetricLedger ledger;
    private final Instance instance;
    /** The interval of every due metric, for the solo lane's back-off. */
    private final Map<String, Duration> intervals;
    /** The grid point the tick serves, for back-off decisions. */
    private final Instant gridPoint;
    /** Suspects that timed out alone: their own fault only if the server answered others. */
    private final List<FailedRun> timedOutAlone = new ArrayList<>();

    LaneBook(SourceSession session, SoloLane solo, MetricLedger ledger, Instance instance,
            Map<String, Duration> intervals, Instant gridPoint) {
        this.session = session;
        this.solo = solo;
        this.suspects = solo.suspects();
        this.ledger = ledger;
        this.instance = instance;
        this.intervals = intervals;
        this.gridPoint = gridPoint;
    }

    /** Refused without a round trip ({@link SourceSession#refusal}): never sent, never a suspect. */
    void refused(MetricQuery query, SQLException refusal, Instant now) {
        solo.fail(query.metric(), intervals.get(query.metric()), gridPoint, false);
        ledger.failed(query.metric(), describe(query, refusal, false), now);
    }

    /** {@code metric} delivered rows: no longer a suspect. */
    void delivered(String metric) {
        suspects.cleared(metric);
    }

    /** {@code metric} ran alone and delivered: pinned there when its SQL held several statements, else recovered. */
    void deliveredAlone(String metric, boolean severalStatements) {
        suspects.cleared(metric);
        if (severalStatements) {
            solo.pin(metric);
        } else {
            solo.recovered(metric);
        }
    }

    /**
     * Sets aside the metric a round trip's failure belongs to, named by the session. Its own error
     * (an object this server lacks, a runtime error) moves it to the solo lane at once. An overrun
     * does not: on a saturated server any metric may be the one running when its limit passes, and
     * a lock another session holds is nobody's fault here. The metric stays in the pipeline, behind
     * the ones that did not overrun ({@link MetricLedger#pipelineOrder}); only a metric that overran
     * its statement timeout {@link #OVERRUNS_BEFORE_SOLO} times in a row while the server answered
     * others in time is slow on its own and moves to the solo lane, to run alone with back-off.
     *
     * @param answered whether the server answered a round trip of this tick in time
     */
    void setAsideNamed(MetricQuery query, SQLException e, boolean slow, boolean answered, Instant now) {
        if (session.endedByServer(e)) {
            return; // blamed already (blameForLostSession)
        }
        if (slow) {
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
        ledger.failed(query.metric(), describe(query, e, slow), now);
    }

    /**
     * Moves the metric the server's error points at, if any, from {@code sent} to the solo lane
     * with that error (its SQL is wrong for this server: no trial of its own is needed).
     *
     * @return the metric the error pointed at, or empty
     */
    Optional<String> setAsidePointedCulprit(SQLException failure, List<MetricQuery> sent, Instant now) {
        return session.culprit(failure, sent).map(query -> {
            sent.remove(query);
            instance.recordMissingObject(query.metric());
            solo.fail(query.metric(), intervals.get(query.metric()), gridPoint, MissingObject.causedBy(failure));
            ledger.failed(query.metric(), describe(query, failure, false), now);
            return query.metric();
        });
    }

    /**
     * A query that ran alone failed. A suspect's timeout is settled at the end of the tick
     * ({@link #settleTimeouts}); any other failure sends it to the solo lane (again).
     *
     * @param suspect whether it is a suspect rather than a metric already in the solo lane
     */
    void failedAlone(MetricQuery query, SQLException e, boolean timedOut, boolean suspect, Instant now) {
        if (timedOut && suspect) {
            timedOutAlone.add(new FailedRun(query, e));
        } else {
            solo.fail(query.metric(), intervals.get(query.metric()), gridPoint, MissingObject.causedBy(e));
            ledger.failed(query.metric(), describe(query, e, timedOut), now);
        }
    }

    /**
     * A suspect that timed out alone is slow on its own when the server answered another round
     * trip of this tick; otherwise the whole server was slow and it stays a suspect, tried after
     * the other suspects next time (first, it would again stop the search before any answer).
     */
    void settleTimeouts(boolean answered, Instant now) {
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

    /**
     * The server terminated the session while {@code sent} ran ({@code 57P01}: what
     * {@code pg_terminate_backend} of its own backend causes): one of them may be the cause, and
     * would otherwise take the source down on every tick. They become suspects (narrowed down on
     * the next attempt, after the reconnect, like a failed pipeline), a single one goes to the solo
     * lane. A server shutdown also terminates sessions this way; then the innocent suspects are
     * cleared by their next trial.
     */
    void blameForLostSession(SQLException e, List<MetricQuery> sent, Instant now) {
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

    private static String describe(MetricQuery query, SQLException e, boolean timedOut) {
        String reason = timedOut ? "timed out after " + query.statementTimeout().toMillis() + " ms" : "failed";
        return "metric " + query.metric() + " " + reason + " [SQLState " + e.getSQLState() + "]: " + BoundedText.messageOf(e);
    }

    private record FailedRun(MetricQuery query, SQLException error) {
    }
}
