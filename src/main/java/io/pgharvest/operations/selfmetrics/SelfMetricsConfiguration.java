package io.pgharvest.operations.selfmetrics;

import io.pgharvest.model.FleetInstance;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.reaper.ReaperService;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The source name of pgharvest's own state and the {@link SelfReporter} that publishes it. */
@Configuration(proxyBeanMethods = false)
class SelfMetricsConfiguration {

    @Bean
    SelfSource selfSource(ObjectProvider<FleetInstance> fleetInstance) {
        FleetInstance instance = fleetInstance.getIfAvailable();
        return new SelfSource(SelfMetrics.sourceName(instance == null ? null : instance.id()));
    }

    @Bean
    @ConditionalOnProperty(name = "pgharvest.self-metrics.enabled", havingValue = "true", matchIfMissing = true)
    SelfReporter selfReporter(SelfSource source, SinkDispatcher sinks, ObjectProvider<ReaperService> reapers,
            MeasurementPublisher publisher, SelfMetricsProperties properties) {
        // The reapers are looked up when first used: they publish through the same publisher.
        return new SelfReporter(source, sinks::statuses, () -> reapers.getObject().statuses(), publisher,
                Clock.systemUTC(), properties.interval());
    }
}
