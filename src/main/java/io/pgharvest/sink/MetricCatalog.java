package io.pgharvest.sink;

import io.pgharvest.model.MetricDefinition;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * Looks up the definition of a metric by the storage name measurements carry; sinks use it to
 * tell gauges from counters. One abstract method so sinks do not depend on the config store; the
 * defaults let a sink follow which metrics the sources select (a catalog without sources
 * selects none).
 */
@FunctionalInterface
public interface MetricCatalog {

    Optional<MetricDefinition> byStorageName(String storageName);

    /**
     * The storage names the enabled sources select now (primary and standby selections, plus
     * {@code instance_up}, which every source writes). A sink may prepare their destinations
     * before the first row, as pgwatch's PostgreSQL sink creates a table for every selected metric.
     */
    default Set<String> selectedStorageNames() {
        return Set.of();
    }

    /**
     * Waits until the selection may have changed since {@code seen} (a value an earlier call
     * returned; {@code -1} at first), or {@code timeout} passed, and returns the new marker.
     */
    default long awaitSelectionChange(long seen, Duration timeout) throws InterruptedException {
        Thread.sleep(timeout);
        return seen;
    }

    /** A catalog that knows no metric: every column is a gauge. */
    static MetricCatalog empty() {
        return name -> Optional.empty();
    }
}
