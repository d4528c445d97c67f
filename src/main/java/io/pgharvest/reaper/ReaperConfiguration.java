package io.pgharvest.reaper;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.config.HarvestProperties;
import io.pgharvest.discovery.DiscoveryProperties;
import io.pgharvest.discovery.SourceDiscoverer;
import io.pgharvest.discovery.SourceExpansion;
import io.pgharvest.endpoint.ConnectionTester;
import io.pgharvest.endpoint.ConsoleDialect;
import io.pgharvest.endpoint.ResultLimits;
import io.pgharvest.endpoint.SessionOpener;
import io.pgharvest.endpoint.SessionSettings;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.model.SourceKind;
import io.pgharvest.nativemetric.NativeMetricRegistry;
import io.pgharvest.store.ConfigStore;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the collection engine. */
@Configuration(proxyBeanMethods = false)
class ReaperConfiguration {

    /** The one session opener: the engine and the admin API's connection test share its rules. */
    @Bean
    SessionOpener sessionOpener(ReaperProperties properties, HarvestProperties harvest, SecurityProperties security) {
        return new SessionOpener(new SessionSettings(harvest.connectTimeout(), properties.defaultStatementTimeout(),
                properties.lockTimeout(), properties.socketTimeout(), properties.refusePrivilegedSources(),
                security.allowSuperuserSources(),
                new ResultLimits(properties.maxResultRows())));
    }

    /** pgbouncer's admin console: one {@link ConsoleEndpoint} per console dialect. */
    @Bean
    ConsoleEndpoint pgbouncerEndpoint(SessionOpener sessions, ConnectionTester tester) {
        return new ConsoleEndpoint(SourceKind.PGBOUNCER, ConsoleDialect.PGBOUNCER, sessions, tester);
    }

    @Bean
    ConsoleEndpoint pgpoolEndpoint(SessionOpener sessions, ConnectionTester tester) {
        return new ConsoleEndpoint(SourceKind.PGPOOL, ConsoleDialect.PGPOOL, sessions, tester);
    }

    /** Every {@link Endpoint} component serves the kinds it names. */
    @Bean
    EndpointRegistry endpointRegistry(List<Endpoint> endpoints) {
        return new EndpointRegistry(endpoints);
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
        return new ReaperService(store, ownership.getIfAvailable(() -> SourceOwnership.ALL), publisher, registry,
                properties, endpoints, expansion, Clock.systemUTC(), natives);
    }

    /** Named {@code sources}: the health component operators look for. */
    @Bean("sources")
    SourcesHealthContributor sourcesHealthContributor(ConfigStore store, ReaperService reaperService) {
        return new SourcesHealthContributor(store, reaperService);
    }
}
