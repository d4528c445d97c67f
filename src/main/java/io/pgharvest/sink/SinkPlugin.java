package io.pgharvest.sink;

import io.pgharvest.support.plugin.Plugin;
import io.pgharvest.support.plugin.PluginRegistry;

/**
 * One kind of sink: the extension point for a new destination of measurements. Each kind lives in
 * a package of its own with its typed, validated settings record, and is registered in
 * {@code META-INF/services/io.pgharvest.sink.SinkPlugin}; a
 * {@link io.pgharvest.support.plugin.PluginRegistry} finds it there, and the configuration
 * binding, the admin API, the console and docs/sinks.md learn the kind from the registry. Nothing
 * outside the kind's package names it.
 *
 * <p>An entry of {@code pgharvest.sinks} is bound in two parts: the options every sink has (type,
 * name, batching, queue, spill and retry bounds), which the delivery machinery owns, and the
 * kind's own options, bound by {@code type} to its kind's
 * {@link io.pgharvest.support.plugin.PluginKind#settingsClass()}. An option the entry's kind does
 * not own is a start-up error, never ignored.
 *
 * <p>Implementations have a public no-argument constructor and may hold resources shared by all
 * sinks of the kind, released by {@link #close()} after those sinks are closed.
 *
 * @param <S> the settings record of the kind
 */
public interface SinkPlugin<S extends Record & SinkSettings> extends Plugin<S> {

    /** The family of this extension point, as {@link io.pgharvest.support.plugin.PluginKind#family()} names it. */
    String FAMILY = "sink";

    /** Every kind of sink registered on the class path, the application's own first. */
    static PluginRegistry<SinkPlugin<?>> registry() {
        return PluginRegistry.load(SinkPlugin.class);
    }

    /**
     * A started sink.
     *
     * @throws IllegalStateException or IllegalArgumentException naming {@code setup.property()} and
     *     the option at fault when the sink cannot start
     */
    Sink create(SinkSetup<S> setup);
}
