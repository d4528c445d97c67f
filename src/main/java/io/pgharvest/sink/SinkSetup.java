package io.pgharvest.sink;

import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;

/**
 * What a {@link SinkPlugin} is given to start one sink.
 *
 * @param property the entry's configuration path (e.g. {@code pgharvest.sinks[0]}), for errors
 * @param name the sink's unique name (logs, health, meters, spill directory)
 * @param settings the kind's own options, validated
 * @param catalog the metric definitions (gauges, counters, storage names)
 * @param clock the time source
 * @param dataDir pgharvest's data directory ({@code pgharvest.data-dir}), absolute
 * @param serverPort the admin API's {@code server.port}, which no sink may take
 * @param instanceId this collector's fleet instance id, or null outside a fleet
 * @param meters where a sink registers meters of its own
 * @param <S> the kind's settings record
 */
public record SinkSetup<S extends Record>(String property, String name, S settings, MetricCatalog catalog,
        Clock clock, Path dataDir, int serverPort, String instanceId, MeterRegistry meters) {

    public SinkSetup {
        Objects.requireNonNull(property, "property");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(meters, "meters");
    }
}
