package io.pgharvest.reaper;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.sink.MeasurementPublisher;
import io.pgharvest.source.SourceStatusProvider;
import io.pgharvest.store.ConfigStore;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/** Wires the collection engine. */
@Configuration(proxyBeanMethods = false)
class ReaperConfiguration {

    @Bean
    ReaperService reaperService(ConfigStore store, MeasurementPublisher publisher, MeterRegistry registry,
            ReaperProperties properties, HarvestProperties harvest) {
        return new ReaperService(store, publisher, registry, properties, harvest.connectTimeout(), Clock.systemUTC());
    }

    /** Named {@code sources}: the health component operators look for. */
    @Bean("sources")
    SourcesHealthContributor sourcesHealthContributor(ConfigStore store, ReaperService reaperService) {
        return new SourcesHealthContributor(store, reaperService);
    }

    @Bean
    @Primary
    SourceStatusProvider engineSourceStatusProvider(ConfigStore store, ReaperService reaperService) {
        return new EngineSourceStatusProvider(store, reaperService);
    }
}
