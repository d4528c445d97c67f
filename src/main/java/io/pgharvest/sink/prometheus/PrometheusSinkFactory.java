package io.pgharvest.sink.prometheus;

import io.pgharvest.model.FleetInstance;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkFactory;
import io.pgharvest.sink.SinkProperties;
import io.pgharvest.sink.SinkType;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/** Builds {@code prometheus} sinks, refusing the admin API's own port. */
@Component
final class PrometheusSinkFactory implements SinkFactory {

    private final Environment environment;
    private final ObjectProvider<FleetInstance> fleetInstance;

    PrometheusSinkFactory(Environment environment, ObjectProvider<FleetInstance> fleetInstance) {
        this.environment = environment;
        this.fleetInstance = fleetInstance;
    }

    @Override
    public SinkType type() {
        return SinkType.PROMETHEUS;
    }

    @Override
    public Sink create(String property, SinkProperties settings, MetricCatalog catalog, Clock clock) {
        int serverPort = environment.getProperty("server.port", Integer.class, 8080);
        if (settings.effectivePort() != 0 && settings.effectivePort() == serverPort) {
            throw new IllegalStateException(property + ".port: " + serverPort
                    + " is the admin API's server.port; the Prometheus endpoint needs a port of its own");
        }
        FleetInstance instance = fleetInstance.getIfAvailable();
        return PrometheusSink.create(property, settings, catalog, clock, instance == null ? null : instance.id());
    }
}
