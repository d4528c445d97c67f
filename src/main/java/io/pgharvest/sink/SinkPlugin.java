package io.pgharvest.sink;

import java.nio.file.Path;
import java.util.List;

/**
 * One kind of sink: the extension point for a new destination of measurements. Each kind lives in
 * a package of its own with its typed, validated settings record, and is registered in
 * {@code META-INF/services/io.pgharvest.sink.SinkPlugin}; {@link SinkRegistry} finds it there, and
 * the configuration binding, the admin API, the console and docs/sinks.md learn the kind from the
 * registry. Nothing outside the kind's package names it.
 *
 * <p>An entry of {@code pgharvest.sinks} is bound in two parts: the options every sink has (type,
 * name, batching, queue, spill and retry bounds), which the delivery machinery owns, and the
 * kind's own options, bound to {@link #settingsClass()} by {@code type}. An option the entry's
 * kind does not own is a start-up error, never ignored.
 *
 * <p>Implementations have a public no-argument constructor and may hold resources shared by all
 * sinks of the kind, released by {@link #close()} after those sinks are closed.
 *
 * @param <S> the settings record of the kind: its components are the kind's options (camelCase,
 *     bound in kebab-case), absent ones defaulted in the compact constructor
 */
public interface SinkPlugin<S extends Record> extends AutoCloseable {

    /** The {@code pgharvest.sinks[i].type} of this kind, lower case with dashes; also the default sink name. */
    String type();

    /** One line for the API, the console and the docs: where this kind of sink writes. */
    String description();

    /** The record the kind's options bind to. */
    Class<S> settingsClass();

    /** One entry per component of {@link #settingsClass()}, in the order the docs list them. */
    List<SinkOption> options();

    /**
     * Every problem of {@code settings}, each starting with the option's full path under {@code prefix}
     * (e.g. {@code pgharvest.sinks[0].url}); never quotes a secret back.
     */
    List<String> problems(S settings, String prefix);

    /**
     * Where a sink of these settings writes, for the status API and the console: never a user,
     * password, token or query string; null when unknown.
     *
     * @param dataDir pgharvest's data directory, for destinations that default below it
     */
    String destination(S settings, Path dataDir);

    /**
     * A started sink.
     *
     * @throws IllegalStateException or IllegalArgumentException naming {@code setup.property()} and
     *     the option at fault when the sink cannot start
     */
    Sink create(SinkSetup<S> setup);

    /** Releases what the kind shares between its sinks; called after every sink of the kind is closed. */
    @Override
    default void close() {
    }
}
