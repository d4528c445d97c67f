package io.pgharvest.sink.remotewrite;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.FleetInstance;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.SeriesMapping;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkFactory;
import io.pgharvest.sink.SinkProperties;
import io.pgharvest.sink.SinkType;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Component;

/** Builds {@code prometheus-remote-write} sinks. */
@Component
final class RemoteWriteSinkFactory implements SinkFactory {

    private final ObjectProvider<FleetInstance> fleetInstance;
    private final ObjectProvider<MeterRegistry> meters;

    RemoteWriteSinkFactory(ObjectProvider<FleetInstance> fleetInstance, ObjectProvider<MeterRegistry> meters) {
        this.fleetInstance = fleetInstance;
        this.meters = meters;
    }

    @Override
    public SinkType type() {
        return SinkType.PROMETHEUS_REMOTE_WRITE;
    }

    @Override
    public Sink create(String property, SinkProperties settings, MetricCatalog catalog, Clock clock) {
        FleetInstance instance = fleetInstance.getIfAvailable();
        var mapping = new SeriesMapping(catalog, instance == null ? null : instance.id());
        return new RemoteWriteSink(settings.name(), ReceiverEndpoint.of(property, settings), mapping, clock,
                meters.getIfAvailable(SimpleMeterRegistry::new));
    }
}
