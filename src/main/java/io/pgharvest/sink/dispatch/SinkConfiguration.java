package io.pgharvest.sink.dispatch;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.config.DataDirectory;
import io.pgharvest.model.FleetInstance;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.support.plugin.PluginRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Builds the sinks of {@code pgharvest.sinks} (or the embedded default: JSON lines under the data
 * directory plus a Prometheus endpoint) with the kinds of sink in their {@link PluginRegistry}, and the
 * {@link io.pgharvest.model.MeasurementPublisher} reapers use.
 */
@Configuration(proxyBeanMethods = false)
public class SinkConfiguration {

    /** What runs when {@code pgharvest.sinks} is empty, so a fresh start shows something. */
    static final List<String> DEFAULT_TYPES = List.of("jsonfile", "prometheus");

    private static final Logger log = LoggerFactory.getLogger(SinkConfiguration.class);

    /** Every kind of sink registered on the class path; closed after the sinks. */
    @Bean
    PluginRegistry<SinkPlugin<?>> sinkRegistry() {
        return SinkPlugin.registry();
    }

    /** Metric definitions from the config store when there is one; every column a gauge otherwise. */
    @Bean
    MetricCatalog sinkMetricCatalog(ObjectProvider<ConfigStore> store) {
        return new ConfigStoreMetricCatalog(store::getIfAvailable);
    }

    /** The entries of {@code pgharvest.sinks} (or the defaults), bound once: the dispatcher and the history readers read them. */
    @Bean
    ConfiguredSinks configuredSinks(Environment environment, PluginRegistry<SinkPlugin<?>> registry) {
        var entries = new SinkEntries(registry);
        List<BoundSink> configured = entries.bind(environment);
        boolean implicit = configured.isEmpty();
        if (implicit) {
            log.info("No pgharvest.sinks configured: running the default sinks {}", DEFAULT_TYPES);
        }
        return new ConfiguredSinks(implicit ? entries.defaults(DEFAULT_TYPES) : configured, implicit);
    }

    /** The {@link io.pgharvest.model.MeasurementPublisher}: started early, stopped after the reapers. */
    @Bean
    SinkDispatcher sinkDispatcher(Environment environment, ConfiguredSinks sinks, DataDirectory dataDir,
            MetricCatalog catalog, ObjectProvider<MeterRegistry> meters, ObjectProvider<Clock> clock,
            ObjectProvider<FleetInstance> fleetInstance) {
        boolean implicit = sinks.implicit();
        List<BoundSink> bound = sinks.bound();
        MeterRegistry registryOfMeters = meters.getIfAvailable(SimpleMeterRegistry::new);
        FleetInstance instance = fleetInstance.getIfAvailable();
        var host = new BoundSink.Host(catalog, clock.getIfAvailable(Clock::systemUTC), dataDir.path(),
                environment.getProperty("server.port", Integer.class, 8080), instance == null ? null : instance.id(),
                registryOfMeters);
        var started = new ArrayList<ConfiguredSink>();
        try {
            for (BoundSink entry : bound) {
                try {
                    started.add(new ConfiguredSink(entry.plugin().kind().type(), entry.destination(dataDir.path()),
                            entry.create(host), entry.common().delivery()));
                } catch (IllegalStateException e) {
                    if (!implicit) {
                        throw e;
                    }
                    // The implicit default must not stop pgharvest when, say, a postgres_exporter
                    // already holds port 9187: it runs without that endpoint instead.
                    log.warn("Default {} sink not started: {}", entry.name(), e.getMessage());
                }
            }
            return SinkDispatcher.open(started, dataDir.path().resolve("spill"), registryOfMeters, host.clock());
        } catch (RuntimeException e) {
            started.forEach(SinkConfiguration::closeQuietly);
            throw e;
        }
    }

    /** The {@code sinks} health component (bean name minus "HealthContributor"). */
    @Bean
    CompositeHealthContributor sinksHealthContributor(SinkDispatcher dispatcher) {
        return SinksHealthContributor.of(dispatcher);
    }

    private static void closeQuietly(ConfiguredSink configured) {
        try {
            configured.sink().close();
        } catch (Exception e) {
            log.debug("Closing sink {} after a failed start-up failed", configured.sink().name(), e);
        }
    }
}
