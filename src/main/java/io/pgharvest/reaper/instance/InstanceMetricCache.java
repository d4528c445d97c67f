package io.pgharvest.reaper.instance;

import io.pgharvest.kind.FetchedRows;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Results shared by the sources of one PostgreSQL {@link Instance}: instance-level metrics (the
 * same rows for all) and fanned-out metrics (one instance-wide read, split per database). Ten
 * databases on one server cost one fetch of the server-wide views per interval, not ten.
 *
 * <p>Whoever fetched a result keeps fetching it; the others reuse it, each source a given result
 * at most once. A source therefore never delivers its own result twice, and the one that fetches
 * stays the same tick after tick even when ticks jitter by a few milliseconds around the
 * interval's edge. That matters beyond the fetch count: the set of metrics a source sends on a
 * tick stays the same, so its pipelines keep their prepared statements on both sides.
 * A result may be reused until it is one and a half intervals old, which absorbs a late tick of
 * the source that fetches it; older, it is dropped and the next source due fetches it instead.
 *
 * <p>One fetch at a time per metric: a source about to fetch claims the metric first
 * ({@link #tryClaim}); while the claim stands, the other sources due do not fetch it too, they
 * deliver the result on their next tick. Without this, every source whose tick falls inside the
 * fetch (at start-up, when nothing is cached yet, or when the fetching source's tick was late)
 * runs the same instance-wide query at once: on a slow server with hundreds of databases that
 * made each of those queries slower still, until they all hit the statement timeout.
 */
public final class InstanceMetricCache {

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    /** False for the results of an instance that shares nothing ({@link Instance#alone()}): nothing is kept. */
    private final boolean keeps;
    /** Metrics being fetched, with the time the claim lapses if its holder never settles it. */
    private final ConcurrentHashMap<String, Instant> claims = new ConcurrentHashMap<>();

    InstanceMetricCache() {
        this(true);
    }

    private InstanceMetricCache(boolean keeps) {
        this.keeps = keeps;
    }

    /** A cache that keeps nothing: every fetch is delivered by its own source only. */
    static InstanceMetricCache keepingNothing() {
        return new InstanceMetricCache(false);
    }

    /**
     * A result for {@code metric} that this source may deliver instead of fetching: fetched by
     * another source, younger than one and a half {@code interval}s, and not
     * {@code alreadyDelivered}, the entry this source delivered (or fetched) last time.
     */
    public Optional<Entry> reusable(String metric, Duration interval, Instant now, Entry alreadyDelivered) {
        Entry entry = entries.get(metric);
        if (entry == null || entry == alreadyDelivered) {
            return Optional.empty();
        }
        // In milliseconds: Duration.dividedBy goes through BigDecimal, and this runs for every
        // shared metric of every source on every tick.
        long maxAgeMillis = interval.toMillis() * 3 / 2;
        if (!entry.fetchedAt().plusMillis(maxAgeMillis).isAfter(now)) {
            // Too old for anybody; drop it so that nobody delivers a stale result.
            entries.remove(metric, entry);
            return Optional.empty();
        }
        return Optional.of(entry);
    }

    /**
     * Claims the fetch of {@code metric}: true when no other source is fetching it (or its claim
     * has lapsed at {@code now}); the caller then fetches it and {@link #release}s the claim when
     * its round trip is over, whatever the outcome.
     *
     * @param lapsesAt when the claim is given up if it is never released (a holder that died)
     */
    public boolean tryClaim(String metric, Instant now, Instant lapsesAt) {
        Instant held = claims.putIfAbsent(metric, lapsesAt);
        return held == null || (!held.isAfter(now) && claims.replace(metric, held, lapsesAt));
    }

    /** Ends a claim taken with {@link #tryClaim}. */
    public void release(String metric) {
        claims.remove(metric);
    }

    /** Shares a fetched result; the returned entry is what the fetching source has delivered. */
    public Entry put(String metric, Instant fetchedAt, FetchedRows rows) {
        return share(metric, new Entry(fetchedAt, rows, null));
    }

    /** Shares an instance-wide result already split per database. */
    public Entry putSplit(String metric, Instant fetchedAt, Map<String, FetchedRows> byDatabase) {
        return share(metric, new Entry(fetchedAt, FetchedRows.EMPTY, Map.copyOf(byDatabase)));
    }

    private Entry share(String metric, Entry entry) {
        if (keeps) {
            entries.put(metric, entry);
        }
        return entry;
    }

    int size() {
        return entries.size();
    }

    /**
     * Compared by identity ({@code ==}): two fetches at the same instant are still two results.
     *
     * @param byDatabase for a fanned-out metric, each database's rows; null for an instance-level one
     */
    public record Entry(Instant fetchedAt, FetchedRows rows, Map<String, FetchedRows> byDatabase) {

        /** The rows a source reading {@code database} delivers: its share of a split result, or all. */
        public FetchedRows rowsFor(String database) {
            return byDatabase == null ? rows : byDatabase.getOrDefault(database, FetchedRows.EMPTY);
        }

        @Override
        public boolean equals(Object other) {
            return this == other;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }
    }
}
