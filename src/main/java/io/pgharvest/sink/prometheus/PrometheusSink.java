package io.pgharvest.sink.prometheus;

import io.pgharvest.model.Measurement;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.Sink;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the latest value of every numeric column of every (source, metric) on a scrape endpoint
 * (see {@link SeriesStore} for names, labels and staleness). Writing only updates memory, so this
 * sink never fails and never spills.
 */
public final class PrometheusSink implements Sink {

    private static final Logger log = LoggerFactory.getLogger(PrometheusSink.class);

    private final String name;
    private final SeriesStore series;
    private final ScrapeEndpoint endpoint;

    private PrometheusSink(String name, SeriesStore series, ScrapeEndpoint endpoint) {
        this.name = name;
        this.series = series;
        this.endpoint = endpoint;
    }

    /**
     * Starts the endpoint of the entry at {@code property} (e.g. {@code pgharvest.sinks[1]}).
     *
     * @throws IllegalStateException naming {@code property + ".port"} when the port is taken
     */
    public static PrometheusSink create(String property, String name, PrometheusSinkProperties settings,
            MetricCatalog catalog, Clock clock) {
        return create(property, name, settings, catalog, clock, null);
    }

    /**
     * As {@link #create(String, String, PrometheusSinkProperties, MetricCatalog, Clock)}, for one instance of a fleet:
     * every series carries {@value SeriesStore#INSTANCE_LABEL}={@code instanceId} (null: none).
     */
    public static PrometheusSink create(String property, String name, PrometheusSinkProperties settings,
            MetricCatalog catalog, Clock clock, String instanceId) {
        var series = new SeriesStore(catalog, settings.staleness(), clock, instanceId);
        var endpoint = new ScrapeEndpoint(property, settings.address(), settings.port(),
                settings.path(), series::snapshot);
        log.info("Prometheus sink {} serves http://{}:{}{}", name, endpoint.address(), endpoint.port(),
                settings.path());
        return new PrometheusSink(name, series, endpoint);
    }

    @Override
    public String name() {
        return name;
    }

    /** Writes go to memory, read by the scrape endpoint, which runs from construction: always ready. */
    @Override
    public boolean probe() {
        return true;
    }

    @Override
    public void write(List<Measurement> batch) {
        batch.forEach(series::update);
    }

    /** The port actually bound (differs from the setting when that was 0). */
    public int port() {
        return endpoint.port();
    }

    /** The local address the endpoint listens on ({@code 0.0.0.0}: all interfaces). */
    public String address() {
        return endpoint.address();
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
