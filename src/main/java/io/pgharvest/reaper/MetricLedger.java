package io.pgharvest.reaper;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Last success and last error of each metric of one source, and the shared instance-level result
 * it delivered last. Owned by one reaper.
 */
final class MetricLedger {

    private final Map<String, Entry> entries = new HashMap<>();
    private final Map<String, InstanceMetricCache.Entry> sharedDelivered = new HashMap<>();

    void succeeded(String metric, Instant at) {
        entries.compute(metric, (k, e) -> e == null ? new Entry(at, null, null) : new Entry(at, e.lastError, e.lastErrorAt));
    }

    void failed(String metric, String error, Instant at) {
        entries.compute(metric, (k, e) -> new Entry(e == null ? null : e.lastSuccess, error, at));
    }

    Instant lastSuccess(String metric) {
        Entry e = entries.get(metric);
        return e == null ? null : e.lastSuccess;
    }

    String lastError(String metric) {
        Entry e = entries.get(metric);
        return e == null ? null : e.lastError;
    }

    Instant lastErrorAt(String metric) {
        Entry e = entries.get(metric);
        return e == null ? null : e.lastErrorAt;
    }

    /** The instance-level result this source delivered last for {@code metric}, fetched or reused. */
    InstanceMetricCache.Entry sharedDelivered(String metric) {
        return sharedDelivered.get(metric);
    }

    void deliveredShared(String metric, InstanceMetricCache.Entry entry) {
        sharedDelivered.put(metric, entry);
    }

    void retainOnly(Set<String> metrics) {
        entries.keySet().retainAll(metrics);
        sharedDelivered.keySet().retainAll(metrics);
    }

    private record Entry(Instant lastSuccess, String lastError, Instant lastErrorAt) {
    }
}
