package io.pgharvest.insights;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One read of an instance-wide view per PostgreSQL instance and interval, shared by one metric's
 * collectors on the instance's databases (on their {@link io.pgharvest.nativemetric.InstanceShelf}):
 * who reads, and the latest read. pg_stat_statements is instance-wide, so one member whose database
 * has the extension reads for all of them ({@link InstanceStatements} for query_stats,
 * {@link InstanceTexts} for query_texts).
 *
 * <p>The rules are those of the engine's shared results ({@code reaper.instance.InstanceMetricCache}):
 * whoever read keeps reading; the others take the latest read when it is younger than one and a
 * half intervals and not the one they took last; one read at a time ({@link #tryClaim}), so members
 * whose ticks fall inside a read wait for it instead of reading too.
 *
 * <p>Thread-safe: the reapers of all the instance's databases use it at once; a read, once
 * published, is never changed.
 *
 * @param <R> a read
 */
abstract class SharedRead<R extends SharedRead.Timed> {

    /** A read, and when it was made. */
    interface Timed {
        Instant at();
    }

    private final AtomicReference<R> latest = new AtomicReference<>();
    /** When the claim on the read lapses if its holder never releases it; null when nobody reads. */
    private final AtomicReference<Instant> claim = new AtomicReference<>();
    /** The last time a member whose database has the extension collected (so that members without wait for it). */
    private volatile Instant readerSeen;

    /**
     * The latest read, for a member that did not take it yet ({@code taken} is what it took last)
     * and whose previous entries are older ({@code after}, null when that does not matter), while
     * it is younger than one and a half {@code interval}s.
     */
    Optional<R> reusable(Duration interval, Instant now, R taken, Instant after) {
        R read = latest.get();
        if (read == null || read == taken || (after != null && !read.at().isAfter(after))) {
            return Optional.empty();
        }
        return read.at().plusMillis(interval.toMillis() * 3 / 2).isAfter(now) ? Optional.of(read) : Optional.empty();
    }

    /** Claims the next read: true when nobody else is reading (or their claim lapsed at {@code now}). */
    boolean tryClaim(Instant now, Instant lapsesAt) {
        Instant held = claim.get();
        if (held != null && held.isAfter(now)) {
            return false;
        }
        return claim.compareAndSet(held, lapsesAt);
    }

    /** Ends a claim taken with {@link #tryClaim}, whatever the read's outcome. */
    void release() {
        claim.set(null);
    }

    /** Shares a read with the other members. */
    void publish(R read) {
        latest.set(read);
    }

    /** A member that can read pg_stat_statements in its own database collected at {@code now}. */
    void readerSeen(Instant now) {
        readerSeen = now;
    }

    /**
     * Whether a member that can read the extension collected within the last two {@code interval}s,
     * so that a member whose database lacks the extension gets its entries from that member's reads.
     */
    boolean hasReader(Duration interval, Instant now) {
        Instant seen = readerSeen;
        return seen != null && seen.plus(interval.multipliedBy(2)).isAfter(now);
    }
}
