package io.pgharvest.reaper.ownership;

import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;
import java.util.HashMap;
import java.util.Map;

/**
 * The fleet leases a configured source, while a discovering source (continuous discovery, a
 * Patroni cluster) runs one reaper per database or member under that one lease. This counts the
 * reapers running under each lease: the first acquires it from {@link SourceOwnership}, and only
 * when the last has stopped is it released, so the source can never start on another instance
 * while one of its reapers still runs here. For a plain source it is one reaper per lease.
 */
public final class SharedLeases {

    private final SourceOwnership ownership;
    private final Map<String, Use> uses = new HashMap<>();
    /**
     * Held across the calls into {@link SourceOwnership} too, so a lease's release and its next
     * acquisition cannot interleave (a lock, not {@code synchronized}: the release may write to
     * the fleet database from a virtual thread).
     */
    private final ReentrantLock lock = new ReentrantLock();

    public SharedLeases(SourceOwnership ownership) {
        this.ownership = ownership;
    }

    /**
     * Counts one more reaper under {@code lease}; false if this instance may not start it.
     *
     * @return whether the reaper may start
     */
    public boolean acquire(String lease) {
        lock.lock();
        try {
            return acquireLocked(lease);
        } finally {
            lock.unlock();
        }
    }

    private boolean acquireLocked(String lease) {
        Use use = uses.get(lease);
        if (use == null) {
            if (!ownership.acquire(lease)) {
                return false;
            }
            // Read once per hand-over: every reaper under the lease resumes after the same tick.
            use = new Use(ownership.previousTick(lease));
            uses.put(lease, use);
        } else if (!ownership.holds(lease)) {
            return false;
        }
        use.reapers++;
        return true;
    }

    /** When the previous owner last ticked the lease's source, for a reaper just acquired; null if unknown. */
    public Instant previousTick(String lease) {
        lock.lock();
        try {
            Use use = uses.get(lease);
            return use == null ? null : use.previousTick;
        } finally {
            lock.unlock();
        }
    }

    /**
     * One reaper under {@code lease} has stopped; the last one releases the lease.
     *
     * @param lastTick when that reaper's last tick started; null if it never ticked
     */
    public void released(String lease, Instant lastTick) {
        lock.lock();
        try {
            Use use = uses.get(lease);
            if (use == null) {
                return;
            }
            if (lastTick != null && (use.lastTick == null || lastTick.isAfter(use.lastTick))) {
                use.lastTick = lastTick;
            }
            if (--use.reapers == 0) {
                uses.remove(lease);
                ownership.released(lease, use.lastTick);
            }
        } finally {
            lock.unlock();
        }
    }

    private static final class Use {
        private final Instant previousTick;
        private int reapers;
        private Instant lastTick;

        private Use(Instant previousTick) {
            this.previousTick = previousTick;
        }
    }
}
