package io.pgharvest.reaper;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Results of instance-level metrics, shared by every source on the same PostgreSQL instance:
 * ten databases on one server cost one fetch of the server-wide views per interval, not ten.
 *
 * <p>Whoever fetched a result keeps fetching it; the others reuse it, each source a given result
 * at most once. A source therefore never delivers its own result twice, and the one that fetches
 * stays the same tick after tick even when ticks jitter by a few milliseconds around the
 * interval's edge. That matters beyond the fetch count: the set of metrics a source sends on a
 * tick stays the same, so its pipelines keep their prepared statements on both sides.
 * A result may be reused until it is one and a half intervals old, which absorbs a late tick of
 * the source that fetches it; older, it is dropped and the next source due fetches it instead.
 */
final class InstanceMetricCache {

    private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();

    /**
     * A result for {@code metric} on {@code instance} that this source may deliver instead of
     * fetching: fetched by another source, younger than one and a half {@code interval}s, and
     * not {@code alreadyDelivered}, the entry this source delivered (or fetched) last time.
     */
    Optional<Entry> reusable(String instance, String metric, Duration interval, Instant now, Entry alreadyDelivered) {
        Key key = new Key(instance, metric);
        Entry entry = entries.get(key);
        if (entry == null || entry == alreadyDelivered) {
            return Optional.empty();
        }
        if (!entry.fetchedAt().plus(interval.plus(interval.dividedBy(2))).isAfter(now)) {
            // Too old for anybody; drop it so dead instances do not linger.
            entries.remove(key, entry);
            return Optional.empty();
        }
        return Optional.of(entry);
    }

    /** Shares a fetched result; the returned entry is what the fetching source has delivered. */
    Entry put(String instance, String metric, Instant fetchedAt, FetchedRows rows) {
        Entry entry = new Entry(fetchedAt, rows);
        entries.put(new Key(instance, metric), entry);
        return entry;
    }

    int size() {
        return entries.size();
    }

    private record Key(String instance, String metric) {
    }

    /** Compared by identity ({@code ==}): two fetches at the same instant are still two results. */
    record Entry(Instant fetchedAt, FetchedRows rows) {
    }
}
