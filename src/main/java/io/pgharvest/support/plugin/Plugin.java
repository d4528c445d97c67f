package io.pgharvest.support.plugin;

/**
 * One implementation of an extension point. Each extension point has its own sub-interface (what
 * the implementation does); this part is what every registry, binder and listing needs.
 * Implementations have a public no-argument constructor (they are found through
 * {@link java.util.ServiceLoader}) and may hold resources shared by all instances of their kind,
 * released by {@link #close()}.
 *
 * @param <S> the settings record of the kind
 */
public interface Plugin<S extends Record & PluginSettings> extends AutoCloseable {

    /** The kind's type, description, settings record and options. */
    PluginKind<S> kind();

    /** Releases what the kind shares between its instances; called once, at shut-down. */
    @Override
    default void close() {
    }
}
