package io.pgharvest.sink;

import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kinds of sink this build has, by type: every {@link SinkPlugin} registered in
 * {@code META-INF/services/io.pgharvest.sink.SinkPlugin}, the application's own first. A kind
 * whose options do not describe its settings record ({@link SinkKind}), or two kinds of one type,
 * stop start-up. Immutable once built; closing it closes every kind.
 */
public final class SinkRegistry implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SinkRegistry.class);

    private final Map<String, SinkPlugin<?>> byType = new LinkedHashMap<>();

    /** @throws IllegalArgumentException when two kinds have one type */
    public SinkRegistry(Collection<? extends SinkPlugin<?>> plugins) {
        for (SinkPlugin<?> plugin : plugins) {
            String type = plugin.kind().type();
            SinkPlugin<?> other = byType.putIfAbsent(type, plugin);
            if (other != null) {
                throw new IllegalArgumentException("two sink kinds of type " + type + ": "
                        + other.getClass().getName() + " and " + plugin.getClass().getName());
            }
        }
    }

    /**
     * Every kind registered through {@link ServiceLoader} on the class path of this class: the
     * application's own first, in the order of its registration file, then any others (a plug-in
     * jar's, a test's).
     */
    public static SinkRegistry load() {
        var own = new ArrayList<SinkPlugin<?>>();
        var others = new ArrayList<SinkPlugin<?>>();
        ServiceLoader.load(SinkPlugin.class, SinkPlugin.class.getClassLoader())
                .forEach(plugin -> (isOwn(plugin) ? own : others).add(plugin));
        own.addAll(others);
        return new SinkRegistry(own);
    }

    /** Whether {@code plugin} comes from the same jar (or class folder) as pgharvest's sink core. */
    public static boolean isOwn(SinkPlugin<?> plugin) {
        return Objects.equals(location(plugin.getClass()), location(SinkPlugin.class));
    }

    private static Object location(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        return source == null ? null : source.getLocation();
    }

    /** The kinds, in registration order. */
    public List<SinkPlugin<?>> plugins() {
        return List.copyOf(byType.values());
    }

    /** The types, in registration order: the values {@code pgharvest.sinks[i].type} may take. */
    public List<String> types() {
        return List.copyOf(byType.keySet());
    }

    public Optional<SinkPlugin<?>> plugin(String type) {
        return Optional.ofNullable(byType.get(type));
    }

    @Override
    public void close() {
        for (SinkPlugin<?> plugin : byType.values()) {
            try {
                plugin.close();
            } catch (RuntimeException e) {
                log.warn("Closing the {} sink kind failed", plugin.kind().type(), e);
            }
        }
    }
}
