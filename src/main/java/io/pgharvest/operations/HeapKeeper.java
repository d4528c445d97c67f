package io.pgharvest.operations;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Keeps the Serial collector's old generation near the live data (issue 23).
 *
 * <p>The shipped flags choose the Serial collector (docs/performance.md, "JVM flags"). It collects
 * the old generation only when the heap reaches its maximum: until then it grows the old
 * generation for whatever a young collection promotes. A collector's measurements live a second
 * or two (a tick's rows wait for the sink's batch), long enough to be promoted, so the old
 * generation filled with dead rows and grew without bound: 433 MB committed for 73 MB of live
 * data at 300 sources after two minutes, and it would have gone on to the default maximum (a
 * quarter of the machine's memory). The JDK has no periodic collection for Serial (G1 has
 * {@code G1PeriodicGCInterval}), so this asks for a full collection when the old generation holds
 * more than {@link #GROWTH_FACTOR} times what survived its last collection plus
 * {@link #GROWTH_ALLOWANCE_BYTES}. With {@code -XX:-ShrinkHeapInSteps} the heap then shrinks to
 * the live data at once. At 300 sources (about 70 MB live) the bound (1.25 times plus 8 MB) was
 * reached once in a 120 s window after the start, and that full collection took 0.21 s (JFR,
 * docs/performance.md). Measured at 300 sources against 1.5 times plus 16 MB: RSS 256 instead of
 * 262 MB, CPU within the noise (4.2 and 4.4 CPU-s per 90 s); twice plus 32 MB had left 40 MB more
 * at 60 sources.
 *
 * <p>Does nothing under any other collector (they bound their own old generations), and nothing
 * when explicit collections are disabled ({@code -XX:+DisableExplicitGC}).
 */
@Component
class HeapKeeper implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(HeapKeeper.class);
    /** The Serial collector's old generation, as its memory pool is named. */
    static final String SERIAL_OLD_POOL = "Tenured Gen";
    static final double GROWTH_FACTOR = 1.25;
    static final long GROWTH_ALLOWANCE_BYTES = 8L << 20;
    private static final Duration CHECK_EVERY = Duration.ofSeconds(10);

    private final Optional<MemoryPoolMXBean> oldGeneration = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(pool -> pool.getType() == MemoryType.HEAP && pool.getName().equals(SERIAL_OLD_POOL))
            .findFirst();
    private final Duration checkEvery;
    private volatile Thread checker;
    private volatile long collections;

    HeapKeeper() {
        this(CHECK_EVERY);
    }

    HeapKeeper(Duration checkEvery) {
        this.checkEvery = checkEvery;
    }

    /** Full collections asked for so far. */
    long collections() {
        return collections;
    }

    /**
     * Whether the old generation has grown enough past the live data to be worth a full collection.
     *
     * @param used bytes in use in the old generation now
     * @param usedAfterLastCollection bytes that survived its last collection (0 before the first)
     */
    static boolean worthCollecting(long used, long usedAfterLastCollection) {
        return used > GROWTH_FACTOR * usedAfterLastCollection + GROWTH_ALLOWANCE_BYTES;
    }

    @Override
    public void start() {
        if (oldGeneration.isEmpty()) {
            return; // not the Serial collector
        }
        checker = Thread.ofVirtual().name("heap-keeper").start(this::run);
    }

    private void run() {
        MemoryPoolMXBean pool = oldGeneration.orElseThrow();
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(checkEvery);
                MemoryUsage now = pool.getUsage();
                MemoryUsage afterLast = pool.getCollectionUsage();
                long live = afterLast == null ? 0 : afterLast.getUsed();
                if (worthCollecting(now.getUsed(), live)) {
                    collections++;
                    log.debug("Old generation holds {} MB, {} MB survived its last collection: collecting ({})",
                            now.getUsed() >> 20, live >> 20, collections);
                    System.gc();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stopping
        }
    }

    @Override
    public void stop() {
        Thread thread = checker;
        if (thread != null) {
            thread.interrupt();
            checker = null;
        }
    }

    @Override
    public boolean isRunning() {
        return checker != null;
    }
}
