package io.pgharvest.kind.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;

/**
 * pgharvest's own limit on a round trip, independent of every setting a metric can reach: the
 * server's {@code statement_timeout} bounds each metric only as long as no metric switches it off
 * and no function on the server swallows the timeout ({@code exception when query_canceled}).
 * When the round trip's deadline passes, a cancel request is sent; when it still has not ended
 * {@link #ABORT_AFTER_CANCEL} later, the session is closed under it (the reaper then reconnects).
 *
 * <p>One scheduler thread for the whole process (a platform thread count that does not grow with
 * the sources); the cancel and the close run on virtual threads of their own, since both do
 * network I/O.
 */
final class RoundTripDeadline implements AutoCloseable {

    /** Time for the server's own timeout to arrive first, network included. */
    static final Duration CANCEL_GRACE = Duration.ofSeconds(2);
    /** Time for a cancelled round trip to end before its session is closed. */
    static final Duration ABORT_AFTER_CANCEL = Duration.ofSeconds(5);

    private static final ScheduledExecutorService SCHEDULER = scheduler();

    private final Connection connection;
    private final ScheduledFuture<?> cancel;
    private volatile ScheduledFuture<?> abort;
    private volatile boolean ended;

    private RoundTripDeadline(Connection connection, Duration budget) {
        this.connection = connection;
        this.cancel = SCHEDULER.schedule(this::cancelNow, budget.plus(CANCEL_GRACE).toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Starts the clock of a round trip whose statements may take {@code budget} together. */
    static RoundTripDeadline start(Connection connection, Duration budget) {
        return new RoundTripDeadline(connection, budget);
    }

    private void cancelNow() {
        if (ended) {
            return;
        }
        abort = SCHEDULER.schedule(this::abortNow, ABORT_AFTER_CANCEL.toMillis(), TimeUnit.MILLISECONDS);
        Thread.ofVirtual().name("round-trip-cancel").start(() -> {
            try {
                connection.unwrap(PGConnection.class).cancelQuery();
            } catch (SQLException ignored) {
                // the close that follows ends the round trip either way
            }
        });
    }

    private void abortNow() {
        if (ended) {
            return;
        }
        try {
            connection.abort(command -> Thread.ofVirtual().name("round-trip-abort").start(command));
        } catch (SQLException ignored) {
            // already closed
        }
    }

    /** The round trip ended: nothing more is sent. */
    @Override
    public void close() {
        ended = true;
        cancel.cancel(false);
        ScheduledFuture<?> pendingAbort = abort;
        if (pendingAbort != null) {
            pendingAbort.cancel(false);
        }
    }

    private static ScheduledExecutorService scheduler() {
        var executor = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name("round-trip-deadlines").daemon(true).factory());
        executor.setRemoveOnCancelPolicy(true); // a finished round trip leaves nothing queued
        return Executors.unconfigurableScheduledExecutorService(executor);
    }
}
