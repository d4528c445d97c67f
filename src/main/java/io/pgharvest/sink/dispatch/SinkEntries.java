package io.pgharvest.sink.dispatch;

import io.pgharvest.config.plugin.PluginConfigurationException;
import io.pgharvest.config.plugin.PluginEntries;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.support.plugin.PluginRegistry;
import java.util.List;
import org.springframework.core.env.Environment;

/**
 * Binds {@code pgharvest.sinks} as {@link PluginEntries} binds any list of plug-ins: each entry's
 * common options to {@link SinkEntryProperties} and, by its {@code type}, the rest to its kind's
 * settings record; every problem of every entry is reported together.
 */
final class SinkEntries {

    static final String ROOT = "pgharvest.sinks";

    private final PluginEntries<SinkPlugin<?>, SinkEntryProperties> entries;

    SinkEntries(PluginRegistry<SinkPlugin<?>> registry) {
        this.entries = new PluginEntries<>(SinkPlugin.FAMILY, ROOT, registry, SinkEntryProperties.class);
    }

    /**
     * The configured entries, bound and named; empty when none are configured.
     *
     * @throws SinkConfigurationException listing every problem of every entry
     */
    List<BoundSink> bind(Environment environment) {
        try {
            return entries.bind(environment).stream().map(BoundSink::new).toList();
        } catch (PluginConfigurationException e) {
            throw new SinkConfigurationException(e.problems());
        }
    }

    /** The entries pgharvest runs when none are configured: each of {@code types} that this build has, at its defaults. */
    List<BoundSink> defaults(List<String> types) {
        return entries.defaults(types).stream().map(BoundSink::new).toList();
    }
}
