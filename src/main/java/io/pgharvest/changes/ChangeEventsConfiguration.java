package io.pgharvest.changes;

import io.pgharvest.model.MeasurementObserver;
import io.pgharvest.model.MeasurementPublisher;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import io.pgharvest.sink.MetricCatalog;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * Puts change detection in front of the sinks: the reapers publish to it, it publishes to the sinks
 * and shows the same measurements to every {@link MeasurementObserver} (the recent window).
 */
@Configuration(proxyBeanMethods = false)
public class ChangeEventsConfiguration {

    @Bean
    @Primary
    MeasurementPublisher changeEventsPublisher(SinkDispatcher sinks, ObjectProvider<MeasurementObserver> observers) {
        List<MeasurementObserver> found = observers.orderedStream().toList();
        return new ChangeEventsPublisher(found.isEmpty() ? sinks : new ObservedPublisher(sinks, found));
    }

    /** What the sinks prepare tables for: the change tables instead of the hash metrics. */
    @Bean
    @Primary
    MetricCatalog changeTablesCatalog(@Qualifier("sinkMetricCatalog") MetricCatalog metrics) {
        return new ChangeTablesCatalog(metrics);
    }
}
