package io.pgharvest.reaper.tick;

import io.pgharvest.kind.AloneRun;
import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.RoundTrip;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.model.BoundedText;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.time.Instant;

/**
 * One tick's round trips to the session and what they say of the server: each round trip (a group
 * of queries in one pipeline, or one query alone) is sent, its rows delivered ({@link TickDelivery})
 * and its failures booked ({@link LaneBook}); this class keeps whether the server answered any of
 * them in time, its last timeout, and the allowance of extra round trips spent so far. Those three
 * decide together whether the tick may add a round trip ({@link #mayAdd}) and whether the tick was
 * slow ({@link #slowReason}), so they have one owner.
 *
 * <p>Not thread-safe: one per tick, on the reaper's thread.
 */
final class RoundTrips {

    private final String source;
    private final SourceSession session;
    private final TickDelivery delivery;
    private final LaneBook book;
    private final ReaperMeters.SourceMeters sourceMeters;
    private final int maxExtraRoundTrips;
    private int extraRoundTrips;
    /** Whether the server answered a round trip of this tick in time: with rows or a metric's own error. */
    private boolean answered;
    private SQLException timeout;

    RoundTrips(String source, SourceSession session, TickDelivery delivery, LaneBook book,
            ReaperMeters.SourceMeters sourceMeters, int maxExtraRoundTrips) {
        this.source = source;
        this.session = session;
        this.delivery = delivery;
        this.book = book;
        this.sourceMeters = sourceMeters;
        this.maxExtraRoundTrips = maxExtraRoundTrips;
    }

    /**
     * Whether the tick may add a round trip: within the allowance, and not when the server is
     * slow (a timeout with no round trip answered: more queries would only add to its load).
     */
    boolean mayAdd() {
        return extraRoundTrips < maxExtraRoundTrips && !serverSlow();
    }

    /** A round trip beyond the healthy pipeline is about to be sent. */
    void spend() {
        extraRoundTrips++;
    }

    /** Whether the server answered a round trip of this tick in time. */
    boolean answered() {
        return answered;
    }

    /** Whether a round trip of this tick timed out. */
    boolean timedOut() {
        return timeout != null;
    }

    /** A timeout and no round trip answered in time: more queries would only add to the server's load. */
    boolean serverSlow() {
        return timeout != null && !answered;
    }

    /** Why this tick found the server slow (a timeout and no round trip answered), or null. */
    String slowReason() {
        if (!serverSlow()) {
            return null;
        }
        return "server slow: no round trip of the tick answered in time [SQLState " + timeout.getSQLState() + "]: "
                + BoundedText.messageOf(timeout);
    }

    /**
     * Runs {@code queries} as one pipeline and delivers what came back, also from a round trip that
     * failed part-way ({@link SourceSession#runKeeping}); a lost session ends the tick after that.
     */
    Sent group(List<MetricQuery> queries, Instant now) throws SourceDownException {
        RoundTrip trip = session.runKeeping(queries);
        sourceMeters.roundTrip();
        int delivered = 0;
        var notRun = new ArrayList<MetricQuery>();
        for (int i = 0; i < queries.size(); i++) {
            FetchedRows rows = trip.rows().get(i);
            if (rows != null) {
                book.delivered(queries.get(i).metric());
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
        book.blameForLostSession(e, failed != null ? List.of(failed) : notRun, now);
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
     * Runs one query alone.
     *
     * @param suspect whether it is a suspect (a timeout is then settled at the end of the tick)
     *     rather than a metric already in the solo lane
     */
    void alone(MetricQuery query, Instant now, boolean suspect) throws SourceDownException {
        try {
            AloneRun run = session.runAlone(query);
            sourceMeters.roundTrip();
            answered = true;
            book.deliveredAlone(query.metric(), run.severalStatements());
            delivery.deliver(query.metric(), run.rows(), now);
            sourceMeters.fetch(ReaperMeters.OK, 1);
        } catch (SQLException e) {
            sourceMeters.roundTrip();
            book.blameForLostSession(e, List.of(query), now);
            boolean timedOut = failureOf(e) == SourceSession.Failure.SLOW;
            sourceMeters.fetch(timedOut ? ReaperMeters.TIMEOUT : ReaperMeters.ERROR, 1);
            if (timedOut) {
                timeout = e;
            } else {
                answered = true; // with the metric's own error, in time
            }
            book.failedAlone(query, e, timedOut, suspect, now);
        }
    }

    /** How {@code e} bears on the tick; a lost session ends it. */
    private SourceSession.Failure failureOf(SQLException e) throws SourceDownException {
        SourceSession.Failure failure = session.classify(e);
        if (failure == SourceSession.Failure.BROKEN) {
            throw new SourceDownException(source, e);
        }
        return failure;
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
    record Sent(SQLException failure, MetricQuery failed, boolean slow, List<MetricQuery> notRun) {
        static final Sent WHOLE = new Sent(null, null, false, List.of());
    }
}
