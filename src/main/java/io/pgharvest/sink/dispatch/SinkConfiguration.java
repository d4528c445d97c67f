package io.pgharvest.sink.dispatch;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkFactory;
import io.pgharvest.sink.SinkProperties;
import io.pgharvest.sink.SinksProperties;
import io.pgharvest.sink.SinkType;
import io.pgharvest.store.ConfigStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Builds the sinks of {@code pgharvest.sinks} (or the embedded default: JSON lines under the data
 * directory plus a Prometheus endpoint) and the {@link io.pgharvest.model.MeasurementPublisher} reapers use.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SinksProperties.class)
public class SinkConfiguration {

    private static final Logger log = LoggerFactory.getLogger(SinkConfiguration.class);

    /** Metric definitions from the config store when there is one; every column a gauge otherwise. */
    @Bean
    MetricCatalog sinkMetricCatalog(ObjectProvider<ConfigStore> store) {
        return new ConfigStoreMetricCatalog(store::getIfAvailable);
    }

    /** The {@link io.pgharvest.model.MeasurementPublisher}: started early, stopped after the reapers. */
    @Bean
    SinkDispatcher sinkDispatcher(SinksProperties properties, MetricCatalog catalog, List<SinkFactory> factories,
            ObjectProvider<MeterRegistry> meters, ObjectProvider<Clock> clock) {
        Clock time = clock.getIfAvailable(Clock::systemUTC);
        var byType = new EnumMap<SinkType, SinkFactory>(SinkType.class);
        factories.forEach(factory -> byType.put(factory.type(), factory));
        List<SinkProperties> settings = properties.effectiveSinks();
        if (properties.sinks().isEmpty()) {
            log.info("No pgharvest.sinks configured: writing JSON lines to {} and serving Prometheus metrics on "
                    + "port {}", settings.getFirst().path(), SinkProperties.DEFAULT_PROMETHEUS_PORT);
        }
        var sinks = new ArrayList<Sink>();
        var used = new ArrayList<SinkProperties>();
        try {
            for (int i = 0; i < settings.size(); i++) {
                SinkProperties sink = settings.get(i);
                if (properties.sinks().isEmpty()) {
                    // The implicit default must not stop pgharvest when, say, a postgres_exporter
                    // already holds port 9187: it runs without that endpoint instead.
                    try {
                        sinks.add(create(byType, "pgharvest.sinks (default " + sink.name() + " sink)", sink, catalog,
                                time));
                        used.add(sink);
                    } catch (IllegalStateException e) {
                        log.warn("Default {} sink not started: {}", sink.name(), e.getMessage());
                    }
                } else {
                    sinks.add(create(byType, "pgharvest.sinks[" + i + "]", sink, catalog, time));
                    used.add(sink);
                }
            }
            return SinkDispatcher.open(sinks, used, properties.dataDir().resolve("spill"),
                    meters.getIfAvailable(SimpleMeterRegistry::new), time);
        } catch (RuntimeException e) {
            sinks.forEach(SinkConfiguration::closeQuietly);
            throw e;
        }
    }

    /** The {@code sinks} health component (bean name minus "HealthContributor"). */
    @Bean
    CompositeHealthContributor sinksHealthContributor(SinkDispatcher dispatcher) {
        return SinksHealthContributor.of(dispatcher);
    }

    private static Sink create(Map<SinkType, SinkFactory> factories, String property, SinkProperties settings,
            MetricCatalog catalog, Clock clock) {
        SinkFactory factory = factories.get(settings.type());
        if (factory == null) {
            throw new IllegalStateException(property + ".type: no sink implementation for " + settings.type());
        }
        return factory.create(property, settings, catalog, clock);
    }

    private static void closeQuietly(Sink sink) {
        try {
            sink.close();
        } catch (Exception e) {
            log.debug("Closing sink {} after a failed start-up failed", sink.name(), e);
        }
    }
}
