package io.pgharvest.reaper;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.sink.MeasurementPublisher;
import io.pgharvest.store.ConfigStore;
import java.time.Clock;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the collection engine. */
@Configuration(proxyBeanMethods = false)
class ReaperConfiguration {

    @Bean
    ReaperService reaperService(ConfigStore store, MeasurementPublisher publisher, MeterRegistry registry,
            ReaperProperties properties, @Value("${pgharvest.connect-timeout:5s}") Duration connectTimeout) {
        return new ReaperService(store, publisher, registry, properties, connectTimeout, Clock.systemUTC());
    }

    @Bean("sources")
    SourcesHealthContributor sourcesHealthContributor(ConfigStore store, ReaperService reaperService) {
        return new SourcesHealthContributor(store, reaperService);
    }
}
