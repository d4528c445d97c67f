package io.pgharvest.sink;

import io.pgharvest.model.MetricDefinition;
import java.util.Optional;

/**
 * Looks up the definition of a metric by the storage name measurements carry; sinks use it to
 * tell gauges from counters. Kept to one method so sinks do not depend on the config store.
 */
@FunctionalInterface
public interface MetricCatalog {

    Optional<MetricDefinition> byStorageName(String storageName);

    /** A catalog that knows no metric: every column is a gauge. */
    static MetricCatalog empty() {
        return name -> Optional.empty();
    }
}
