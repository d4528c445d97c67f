package io.pgharvest.discovery;

import io.pgharvest.model.MetricDefinition;
import java.util.List;

/**
 * Metrics a discoverer adds to a source it found, whatever the configured selection, and where
 * they are read: a Patroni member's REST API metrics. The reaper collects them like any metric of
 * the source (schedule, ledger, status).
 *
 * @param definitions the added metrics (native ones: {@code nativemetric.NativeMetric})
 * @param intervalSeconds how often each is collected
 * @param restApi the member's REST API address, for the native metric to read; null when it has none
 */
public record AddedMetrics(List<MetricDefinition> definitions, int intervalSeconds, String restApi) {

    /** Nothing added. */
    public static final AddedMetrics NONE = new AddedMetrics(List.of(), 0, null);

    public AddedMetrics {
        definitions = List.copyOf(definitions);
        if (!definitions.isEmpty() && intervalSeconds < 1) {
            throw new IllegalArgumentException("added metrics need an interval of at least 1 s");
        }
    }
}
