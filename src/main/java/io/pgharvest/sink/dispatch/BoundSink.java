package io.pgharvest.sink.dispatch;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.config.plugin.PluginEntry;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSettings;
import io.pgharvest.sink.SinkSetup;
import java.nio.file.Path;
import java.time.Clock;

/**
 * One entry of {@code pgharvest.sinks}, bound and validated: its kind, its common options and its
 * kind's settings record.
 *
 * @param property the entry's configuration path, e.g. {@code pgharvest.sinks[0]}
 * @param name the sink's unique name
 * @param plugin the kind
 * @param common the options every sink has
 * @param settings the kind's own options, an instance of the kind's settings class
 */
record BoundSink(String property, String name, SinkPlugin<?> plugin, SinkEntryProperties common,
        SinkSettings settings) {

    /** A bound entry of the list; its settings are its sink kind's, which are {@link SinkSettings}. */
    BoundSink(PluginEntry<SinkPlugin<?>, SinkEntryProperties> entry) {
        this(entry.property(), entry.name(), entry.plugin(), entry.common(), (SinkSettings) entry.settings());
    }

    /** What every sink is started with besides its own entry. */
    record Host(MetricCatalog catalog, Clock clock, Path dataDir, int serverPort, String instanceId,
            MeterRegistry meters) {
    }

    /** Where the sink writes, without credentials. */
    String destination(Path dataDir) {
        return settings.destination(dataDir);
    }

    /** Starts the sink. */
    Sink create(Host host) {
        return create(plugin, host);
    }

    private <S extends Record & SinkSettings> Sink create(SinkPlugin<S> kind, Host host) {
        return kind.create(new SinkSetup<>(property, name, kind.kind().settingsClass().cast(settings),
                host.catalog(), host.clock(), host.dataDir(), host.serverPort(), host.instanceId(), host.meters()));
    }
}
