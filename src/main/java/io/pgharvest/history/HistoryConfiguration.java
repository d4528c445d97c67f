package io.pgharvest.history;

import io.pgharvest.sink.dispatch.ConfiguredSinks;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.support.plugin.PluginRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The history readers: those of {@code pgharvest.history}, or, when it is not set, one for each
 * configured sink a kind of reader reads (a postgres sink: a postgres reader of its database).
 */
@Configuration(proxyBeanMethods = false)
class HistoryConfiguration {

    private static final Logger log = LoggerFactory.getLogger(HistoryConfiguration.class);
    /** The longest a request waits for a store, all its reads together. */
    static final Duration READ_DEADLINE = Duration.ofSeconds(15);

    /** Every kind of history reader on the class path; closed after the readers. */
    @Bean
    PluginRegistry<HistoryReaderPlugin<?>> historyReaderRegistry() {
        return HistoryReaderPlugin.registry();
    }

    @Bean
    HistoryReaders historyReaders(Environment environment, PluginRegistry<HistoryReaderPlugin<?>> registry,
            ObjectProvider<ConfiguredSinks> sinks, ObjectProvider<ConfigStore> store) {
        var entries = new HistoryEntries(registry);
        List<HistoryEntries.BoundReader> bound = entries.bind(environment);
        if (bound.isEmpty()) {
            ConfiguredSinks configured = sinks.getIfAvailable();
            bound = configured == null ? List.of() : entries.derived(configured.entries());
        }
        var readers = new ArrayList<HistoryReaders.Assigned>();
        try {
            for (HistoryEntries.BoundReader entry : bound) {
                readers.add(new HistoryReaders.Assigned(entry.plugin().createBound(entry.name(), entry.settings()),
                        entry.sources()));
                log.info("History reader {} ({}) from {}, for {}", entry.name(), entry.plugin().kind().type(),
                        entry.property(), entry.sources().isEmpty() ? "every source" : "sources " + entry.sources());
            }
        } catch (RuntimeException e) {
            readers.forEach(assigned -> assigned.reader().close());
            throw e;
        }
        if (readers.isEmpty()) {
            log.info("No history reader: the console's charts reach back as far as the recent window");
        }
        return HistoryReaders.assigned(readers, store::getIfAvailable, READ_DEADLINE);
    }
}
