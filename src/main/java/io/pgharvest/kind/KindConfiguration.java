package io.pgharvest.kind;

import io.pgharvest.discovery.SourceDiscoverer;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The registry of kinds: every {@link Endpoint} component (or bean) of a kind's package serves the kinds it names. */
@Configuration(proxyBeanMethods = false)
class KindConfiguration {

    @Bean
    EndpointRegistry endpointRegistry(List<Endpoint> endpoints) {
        return new EndpointRegistry(endpoints);
    }

    /** Every endpoint and every {@link SourceDiscoverer} component: the kinds the API and the console offer. */
    @Bean
    KindRegistry kindRegistry(EndpointRegistry endpoints, List<SourceDiscoverer> discoverers) {
        return new KindRegistry(endpoints, discoverers);
    }
}
