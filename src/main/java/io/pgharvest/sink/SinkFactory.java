package io.pgharvest.sink;

import java.time.Clock;

/**
 * Builds the sinks of one {@link SinkType}: the extension point for a new kind of sink. Each
 * implementation lives in its sink's own package as a Spring component, so this package never
 * imports them.
 */
public interface SinkFactory {

    /** The {@code type} of {@code pgharvest.sinks[*]} entries this factory builds. */
    SinkType type();

    /**
     * A started sink for {@code settings}.
     *
     * @param property the configuration path of the entry (e.g. {@code pgharvest.sinks[0]}), for errors
     * @throws IllegalStateException naming {@code property} when the sink cannot start
     */
    Sink create(String property, SinkProperties settings, MetricCatalog catalog, Clock clock);
}
