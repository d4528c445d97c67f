package io.pgharvest.history;

import io.pgharvest.config.plugin.PluginEntries;
import io.pgharvest.config.plugin.PluginEntry;
import io.pgharvest.sink.dispatch.ConfiguredSinks;
import io.pgharvest.support.plugin.PluginRegistry;
import io.pgharvest.support.plugin.PluginSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.springframework.core.env.Environment;

/**
 * Binds {@code pgharvest.history} as {@link PluginEntries} binds any list of plug-ins (a
 * {@code type} and optional {@code name}, the rest the kind's own options; every problem of every
 * entry reported at once, naming the entry and the option). Without entries the readers are
 * derived from the configured sinks (a postgres sink gives a postgres reader of the same database).
 */
final class HistoryEntries {

    static final String ROOT = "pgharvest.history";

    /**
     * One reader to create: where it was configured, its name, its kind, bound settings and the
     * sources it answers (empty: all).
     */
    record BoundReader(String property, String name, HistoryReaderPlugin<?> plugin, PluginSettings settings,
            Set<String> sources) {

        BoundReader {
            sources = Set.copyOf(sources);
        }

        BoundReader(PluginEntry<HistoryReaderPlugin<?>, HistoryEntryOptions> entry) {
            this(entry.property(), entry.name(), entry.plugin(), entry.settings(), Set.copyOf(entry.common().sources()));
        }
    }

    private final PluginRegistry<HistoryReaderPlugin<?>> registry;
    private final PluginEntries<HistoryReaderPlugin<?>, HistoryEntryOptions> entries;

    HistoryEntries(PluginRegistry<HistoryReaderPlugin<?>> registry) {
        this.registry = registry;
        this.entries = new PluginEntries<>(HistoryReaderPlugin.FAMILY, ROOT, registry, HistoryEntryOptions.class);
    }

    /**
     * The configured entries; empty when {@code pgharvest.history} is not set.
     *
     * @throws io.pgharvest.config.plugin.PluginConfigurationException listing every problem
     */
    List<BoundReader> bind(Environment environment) {
        return entries.bind(environment).stream().map(BoundReader::new).toList();
    }

    /** A reader for each configured sink some kind reads, in the sinks' order, named after the sink. */
    List<BoundReader> derived(List<ConfiguredSinks.Entry> sinks) {
        var derived = new ArrayList<BoundReader>();
        for (ConfiguredSinks.Entry sink : sinks) {
            for (HistoryReaderPlugin<?> plugin : registry.plugins()) {
                plugin.readerOf(sink).ifPresent(settings -> derived.add(new BoundReader(
                        sink.property() + " (the history of the " + sink.name() + " sink)", sink.name(), plugin,
                        settings, Set.of())));
            }
        }
        return List.copyOf(derived);
    }
}
