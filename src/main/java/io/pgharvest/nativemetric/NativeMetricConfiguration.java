package io.pgharvest.nativemetric;

import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Collects the {@link NativeMetric} components; start-up fails when a known name has none. */
@Configuration(proxyBeanMethods = false)
class NativeMetricConfiguration {

    @Bean
    NativeMetricRegistry nativeMetricRegistry(List<NativeMetric> metrics) {
        var registry = new NativeMetricRegistry(metrics, ServerLocality.system());
        if (!registry.missing().isEmpty()) {
            throw new IllegalStateException("no implementation for the native metrics " + registry.missing());
        }
        return registry;
    }
}
