package io.pgharvest.reaper.tick;

import io.pgharvest.model.BoundedText;
import io.pgharvest.reaper.instance.InstanceMetricCache;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Last success and last error of each metric of one source, and the shared instance-level result
 * it delivered last. Owned by one reaper.
 *
 * <p>Logs a metric's failures once per change of state (working to failing and back), not once
 * per tick: a metric that fails every 10 s on 500 sources would otherwise bury everything else
 * in the log. The status API keeps the last error of every metric.
 */
public final class MetricLedger {

    private static final Logger log = LoggerFactory.getLogger(MetricLedger.class);

    private final String source;
    private final Map<String, Entry> entries = new HashMap<>();
    private final Map<String, InstanceMetricCache.Entry> sharedDelivered = new HashMap<>();
    /** Metrics whose last run in the pipeline overran its time limit, with the run of overruns. */
    private final Map<String, Overrun> overruns = new HashMap<>();

    public MetricLedger(String source) {
        this.source = source;
    }

    void succeeded(String metric, Instant at) {
        overruns.remove(metric);
        Entry before = entries.get(metric);
        if (before != null && before.failing()) {
            log.info("Source {}: metric {} works again", source, metric);
        }
        entries.put(metric, before == null ? new Entry(at, null, null) : new Entry(at, before.lastError, before.lastErrorAt));
    }

    void failed(String metric, String serverText, Instant at) {
        String error = BoundedText.of(serverText);
        Entry before = entries.get(metric);
        if (before == null || !before.failing()) {
            log.warn("Source {}: {}; logged again only once it has worked in between", source, error);
        }
        entries.put(metric, new Entry(before == null ? null : before.lastSuccess, error, at));
    }

    public Instant lastSuccess(String metric) {
        Entry e = entries.get(metric);
        return e == null ? null : e.lastSuccess;
    }

    public String lastError(String metric) {
        Entry e = entries.get(metric);
        return e == null ? null : e.lastError;
    }

    public Instant lastErrorAt(String metric) {
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

    /**
     * {@code metric} overran its time limit in the pipeline at {@code at}.
     *
     * @return how many of its runs in a row overran, this one included
     */
    int overran(String metric, Instant at) {
        Overrun before = overruns.get(metric);
        int inARow = before == null ? 1 : before.inARow() + 1;
        overruns.put(metric, new Overrun(at, inARow));
        return inARow;
    }

    /** Whether {@code metric}'s last run in the pipeline overran (cleared by its next success). */
    boolean overran(String metric) {
        return overruns.containsKey(metric);
    }

    /**
     * The order of a tick's pipeline: metrics that did not overrun first, as they came; then the
     * ones that did, the longest ago first. A metric that overran waits behind every one that did
     * not, so on a slow server its overrun costs no other metric its turn; and the one that overran
     * last goes to the back, so metrics left unsent behind it get their turn on the next tick.
     */
    Comparator<String> pipelineOrder() {
        return Comparator.comparing((String metric) -> {
            Overrun overrun = overruns.get(metric);
            return overrun == null ? Instant.MIN : overrun.at();
        });
    }

    public void retainOnly(Set<String> metrics) {
        entries.keySet().retainAll(metrics);
        sharedDelivered.keySet().retainAll(metrics);
        overruns.keySet().retainAll(metrics);
    }

    private record Overrun(Instant at, int inARow) {
    }

    private record Entry(Instant lastSuccess, String lastError, Instant lastErrorAt) {

        boolean failing() {
            return lastErrorAt != null && (lastSuccess == null || lastErrorAt.isAfter(lastSuccess));
        }
    }
}
