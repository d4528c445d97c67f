package io.pgharvest.sink.dispatch;

import io.micrometer.core.instrument.MeterRegistry;
import io.pgharvest.sink.MetricCatalog;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkSetup;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * One entry of {@code pgharvest.sinks}, bound and validated: its kind, its common options and its
 * kind's settings record.
 *
 * @param property the entry's configuration path, e.g. {@code pgharvest.sinks[0]}
 * @param name the sink's unique name
 * @param plugin the kind
 * @param common the options every sink has
 * @param settings the kind's own options, an instance of {@code plugin.settingsClass()}
 */
record BoundSink(String property, String name, SinkPlugin<?> plugin, SinkEntryProperties common, Record settings) {

    /** What every sink is started with besides its own entry. */
    record Host(MetricCatalog catalog, Clock clock, Path dataDir, int serverPort, String instanceId,
            MeterRegistry meters) {
    }

    /** Where the sink writes, without credentials. */
    String destination(Path dataDir) {
        return destination(plugin, settings, dataDir);
    }

    /** Starts the sink. */
    Sink create(Host host) {
        return create(plugin, host);
    }

    /** The kind's problems with {@code settings}, each under {@code prefix}. */
    static List<String> problems(SinkPlugin<?> kind, Record settings, String prefix) {
        return typedProblems(kind, settings, prefix);
    }

    private <S extends Record> Sink create(SinkPlugin<S> kind, Host host) {
        return kind.create(new SinkSetup<>(property, name, kind.settingsClass().cast(settings), host.catalog(),
                host.clock(), host.dataDir(), host.serverPort(), host.instanceId(), host.meters()));
    }

    private static <S extends Record> String destination(SinkPlugin<S> kind, Record settings, Path dataDir) {
        return kind.destination(kind.settingsClass().cast(settings), dataDir);
    }

    private static <S extends Record> List<String> typedProblems(SinkPlugin<S> kind, Record settings, String prefix) {
        return kind.problems(kind.settingsClass().cast(settings), prefix);
    }
}
