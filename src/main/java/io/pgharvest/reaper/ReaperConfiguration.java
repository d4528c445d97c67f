package io.pgharvest.reaper;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.endpoint.SessionOpener;
import io.pgharvest.endpoint.SessionSettings;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.store.ConfigStore;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the collection engine. */
@Configuration(proxyBeanMethods = false)
class ReaperConfiguration {

    /** The one session opener: the engine and the admin API's connection test share its rules. */
    @Bean
    SessionOpener sessionOpener(ReaperProperties properties, HarvestProperties harvest) {
        return new SessionOpener(new SessionSettings(harvest.connectTimeout(), properties.defaultStatementTimeout(),
                properties.lockTimeout(), properties.socketTimeout(), properties.refusePrivilegedSources()));
    }

    @Bean
    ReaperService reaperService(ConfigStore store, ObjectProvider<SourceOwnership> ownership,
            MeasurementPublisher publisher, MeterRegistry registry, ReaperProperties properties,
            SessionOpener sessions) {
        // Without a fleet (file store), this instance collects every source.
        return new ReaperService(store, ownership.getIfAvailable(() -> SourceOwnership.ALL), publisher, registry,
                properties, sessions, Clock.systemUTC());
    }

    /** Named {@code sources}: the health component operators look for. */
    @Bean("sources")
    SourcesHealthContributor sourcesHealthContributor(ConfigStore store, ReaperService reaperService) {
        return new SourcesHealthContributor(store, reaperService);
    }
}
