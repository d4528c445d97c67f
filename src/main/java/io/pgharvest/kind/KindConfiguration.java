package io.pgharvest.kind;

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
}
