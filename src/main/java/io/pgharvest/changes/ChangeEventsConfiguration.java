package io.pgharvest.changes;

import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import io.pgharvest.sink.MetricCatalog;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/** Puts change detection in front of the sinks: the reapers publish to it, it publishes to the sinks. */
@Configuration(proxyBeanMethods = false)
public class ChangeEventsConfiguration {

    @Bean
    @Primary
    MeasurementPublisher changeEventsPublisher(SinkDispatcher sinks) {
        return new ChangeEventsPublisher(sinks);
    }

    /** What the sinks prepare tables for: the change tables instead of the hash metrics. */
    @Bean
    @Primary
    MetricCatalog changeTablesCatalog(@Qualifier("sinkMetricCatalog") MetricCatalog metrics) {
        return new ChangeTablesCatalog(metrics);
    }
}
