package io.pgharvest.patroni;

import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.store.ConfigStore;
import java.net.http.HttpClient;
import java.time.Clock;
import java.util.concurrent.Executors;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Patroni sources: the discoverer the engine expands them with, and the REST API metrics. */
@Configuration(proxyBeanMethods = false)
class PatroniConfiguration {

    /** The HTTP client for etcd and every member's REST API (one selector thread in all). */
    record PatroniHttp(HttpClient client) {
    }

    @Bean
    PatroniHttp patroniHttp(PatroniProperties properties) {
        return new PatroniHttp(HttpClient.newBuilder()
                .connectTimeout(properties.requestTimeout())
                .followRedirects(HttpClient.Redirect.NEVER) // a redirect must not carry the etcd login elsewhere
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build());
    }

    @Bean
    PatroniDiscoverer patroniDiscoverer(PatroniHttp http, PatroniProperties properties) {
        return new PatroniDiscoverer(new ClusterReader(new EtcdReader(http.client(), properties.requestTimeout())),
                properties.pollInterval());
    }

    @Bean
    PatroniApiCollector patroniApiCollector(ConfigStore store, PatroniDiscoverer discoverer, PatroniHttp http,
            MeasurementPublisher publisher, PatroniProperties properties) {
        return new PatroniApiCollector(store, discoverer, new PatroniApiMetrics(http.client(),
                properties.requestTimeout()), publisher, properties.apiMetricsInterval(), Clock.systemUTC());
    }
}
