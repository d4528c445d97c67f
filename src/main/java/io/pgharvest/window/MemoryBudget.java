package io.pgharvest.window;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The window's hard memory bound: every point array and every series' fixed cost is reserved here
 * before it is allocated and released when it is dropped, so the window never holds more than
 * {@code limit} bytes of series (what a reservation counts is stated in docs/console.md and measured
 * by RecentWindowMemoryTest).
 */
final class MemoryBudget {

    /** Bytes of one point: an epoch-millisecond long and a double. */
    static final int BYTES_PER_POINT = Long.BYTES + Double.BYTES;
    /**
     * Fixed bytes of one series besides its points: the ring object and its two array headers, the
     * key (record, tag map) and its entry in the source's map. An estimate that
     * RecentWindowMemoryTest holds against the measured heap.
     */
    static final int BYTES_PER_SERIES = 320;

    private final long limit;
    private final AtomicLong reserved = new AtomicLong();

    MemoryBudget(long limit) {
        this.limit = limit;
    }

    /** Reserves {@code bytes} if they fit under the limit; false (and nothing reserved) when they do not. */
    boolean reserve(long bytes) {
        long now;
        do {
            now = reserved.get();
            if (now + bytes > limit) {
                return false;
            }
        } while (!reserved.compareAndSet(now, now + bytes));
        return true;
    }

    void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    long reserved() {
        return reserved.get();
    }

    long limit() {
        return limit;
    }
}
