package io.pgharvest.insights;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * query_stats' one read of pg_stat_statements per PostgreSQL instance and interval, shared by the
 * collectors of the instance's databases (on their {@link io.pgharvest.nativemetric.InstanceShelf}).
 * The view is instance-wide: every database's entries are visible from any database where the
 * extension is created, so one member whose database has it reads all of them and each member takes
 * its own database's entries ({@link Read#snapshotOf}).
 *
 * <p>The rules are those of the engine's shared results ({@code reaper.instance.InstanceMetricCache}):
 * whoever read keeps reading; the others take the latest read when it is younger than one and a
 * half intervals and not the one they took last; one read at a time ({@link #tryClaim}), so members
 * whose ticks fall inside a read wait for it instead of reading too.
 *
 * <p>Thread-safe: the reapers of all the instance's databases use it at once; a read, once
 * published, is never changed.
 */
final class InstanceStatements {

    private final AtomicReference<Read> latest = new AtomicReference<>();
    /** When the claim on the read lapses if its holder never releases it; null when nobody reads. */
    private final AtomicReference<Instant> claim = new AtomicReference<>();
    /** The last time a member whose database has the extension collected (so that members without wait for it). */
    private volatile Instant readerSeen;

    /**
     * The latest read, for a member that did not take it yet ({@code taken} is what it took last)
     * and whose previous entries are older ({@code after}), while it is younger than one and a
     * half {@code interval}s.
     */
    Optional<Read> reusable(Duration interval, Instant now, Read taken, Instant after) {
        Read read = latest.get();
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
    void publish(Read read) {
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

    /**
     * One read of the whole instance, split by database.
     *
     * @param at when it was read
     * @param empty the snapshot of a database without entries (the read's dealloc and reset, no entries)
     * @param byDatabase each database's entries, by database name
     */
    record Read(Instant at, StatementSnapshot empty, Map<String, StatementSnapshot> byDatabase) {

        /** The entries of {@code database} in this read. */
        StatementSnapshot snapshotOf(String database) {
            return byDatabase.getOrDefault(database, empty);
        }
    }
}
