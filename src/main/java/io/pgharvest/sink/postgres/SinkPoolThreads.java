package io.pgharvest.sink.postgres;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;

/**
 * Threads shared by every sink connection pool. HikariCP starts a housekeeping executor per pool
 * unless given one; this gives all pools one single-thread scheduler and a virtual-thread factory
 * for connection creation, so platform threads do not grow with the number of sinks.
 */
public final class SinkPoolThreads implements AutoCloseable {

    private final ScheduledThreadPoolExecutor housekeeping;
    private final ThreadFactory connectionThreads = Thread.ofVirtual().name("sink-pool-", 0).factory();

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
