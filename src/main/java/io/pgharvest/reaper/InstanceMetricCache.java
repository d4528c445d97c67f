package io.pgharvest.reaper;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Results of instance-level metrics, shared by every source on the same PostgreSQL instance:
 * ten databases on one server cost one fetch of the server-wide views per interval, not ten.
 * A result is reused while it is younger than the metric's interval.
 */
final class InstanceMetricCache {

    private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();

    /** A fresh result for {@code metric} on {@code instance}, if one was fetched within {@code interval}. */
    Optional<Entry> fresh(String instance, String metric, Duration interval, Instant now) {
        Entry entry = entries.get(new Key(instance, metric));
        if (entry == null) {
            return Optional.empty();
        }
        if (!entry.fetchedAt().plus(interval).isAfter(now)) {
            // Older than one interval: nobody may reuse it; drop it so dead instances do not linger.
            entries.remove(new Key(instance, metric), entry);
            return Optional.empty();
        }
        return Optional.of(entry);
    }

    void put(String instance, String metric, Instant fetchedAt, FetchedRows rows) {
        entries.put(new Key(instance, metric), new Entry(fetchedAt, rows));
    }

    int size() {
        return entries.size();
    }

    private record Key(String instance, String metric) {
    }

    record Entry(Instant fetchedAt, FetchedRows rows) {
    }
}
