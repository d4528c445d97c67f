package io.pgharvest.kind.patroni;

import java.net.http.HttpClient;
import java.util.concurrent.Executors;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Patroni sources: the discoverer the engine expands them with, and the members' REST API metrics. */
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
                properties.pollInterval(), properties.apiMetricsInterval());
    }

    /** Run by each member's reaper ({@code nativemetric.NativeMetric}); the discoverer adds it to the members. */
    @Bean
    PatroniRestMetric patroniRestMetric(PatroniHttp http, PatroniProperties properties) {
        return new PatroniRestMetric(new PatroniApiMetrics(http.client(), properties.requestTimeout()));
    }
}
