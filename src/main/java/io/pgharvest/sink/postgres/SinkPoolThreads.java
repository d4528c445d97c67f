package io.pgharvest.sink.postgres;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;

/**
 * Threads shared by every sink connection pool. HikariCP starts a housekeeping executor per pool
 * unless given one; this gives all pools one single-thread scheduler and one factory for the
 * threads that open connections, so threads do not grow with the number of sinks.
 *
 * <p>Connections are opened on platform threads (HikariCP keeps one per pool while it adds
 * connections, and lets it go when idle), not virtual ones: a virtual thread queues behind every
 * runnable reaper for the same two carriers, and at the start of 300 sources, each parsing its
 * metrics for the first time, the sink's pool waited more than its 5 s connection timeout for one,
 * the first batch failed, and the writer backed off for 33 s before the first row was written.
 */
public final class SinkPoolThreads implements AutoCloseable {

    private final ScheduledThreadPoolExecutor housekeeping;
    private final ThreadFactory connectionThreads = Thread.ofPlatform().name("sink-pool-connector-", 0)
            .daemon(true).factory();

    public SinkPoolThreads() {
        housekeeping = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name("sink-pool-housekeeper").daemon(true).factory());
        housekeeping.setRemoveOnCancelPolicy(true);
    }

    ScheduledExecutorService housekeeping() {
        return housekeeping;
    }

    ThreadFactory connectionThreads() {
        return connectionThreads;
    }

    @Override
    public void close() {
        housekeeping.shutdownNow();
    }
}
