package io.pgharvest.reaper;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.discovery.DiscoveryProperties;
import io.pgharvest.discovery.SourceDiscoverer;
import io.pgharvest.discovery.SourceExpansion;
import io.pgharvest.kind.EndpointRegistry;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.reaper.ownership.SourceOwnership;
import io.pgharvest.store.ConfigStore;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the collection engine. */
@Configuration(proxyBeanMethods = false)
class ReaperConfiguration {

    /** The settings of every session to a monitored endpoint, whatever its kind. */
    @Bean
    SessionSettings sessionSettings(ReaperProperties properties, HarvestProperties harvest, SecurityProperties security) {
        return new SessionSettings(harvest.connectTimeout(), properties.defaultStatementTimeout(),
                properties.lockTimeout(), properties.socketTimeout(), properties.refusePrivilegedSources(),
                security.allowSuperuserSources(), properties.resultLimits());
    }

    /** Every {@link SourceDiscoverer} component expands the kinds it names; the others stand for themselves. */
    @Bean
    SourceExpansion sourceExpansion(List<SourceDiscoverer> discoverers, DiscoveryProperties properties) {
        return new SourceExpansion(discoverers, properties, Clock.systemUTC());
    }

    @Bean
    ReaperService reaperService(ConfigStore store, ObjectProvider<SourceOwnership> ownership,
            MeasurementPublisher publisher, MeterRegistry registry, ReaperProperties properties,
            EndpointRegistry endpoints, SourceExpansion expansion, NativeMetricRegistry natives) {
        // Without a fleet (file store), this instance collects every source.
        return new ReaperService(ReaperService.Parts.of(store, publisher, registry, properties, endpoints)
                .withOwnership(ownership.getIfAvailable(() -> SourceOwnership.ALL)).withExpansion(expansion)
                .withNatives(natives));
    }

    /** Named {@code sources}: the health component operators look for. */
    @Bean("sources")
    SourcesHealthContributor sourcesHealthContributor(ConfigStore store, ReaperService reaperService) {
        return new SourcesHealthContributor(store, reaperService);
    }
}
