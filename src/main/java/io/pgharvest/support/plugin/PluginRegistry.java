package io.pgharvest.support.plugin;

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
 * The kinds of one extension point this build has, by type: every implementation of {@code P}
 * registered in {@code META-INF/services/<P's name>}, the application's own first. Two kinds of
 * one type stop start-up. Immutable once built; closing it closes every kind.
 *
 * @param <P> the extension point's plug-in interface
 */
public final class PluginRegistry<P extends Plugin<?>> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PluginRegistry.class);

    private final Map<String, P> byType = new LinkedHashMap<>();

    /** @throws IllegalArgumentException when two kinds have one type */
    public PluginRegistry(Collection<? extends P> plugins) {
        for (P plugin : plugins) {
            String type = plugin.kind().type();
            P other = byType.putIfAbsent(type, plugin);
            if (other != null) {
                throw new IllegalArgumentException("two " + plugin.kind().family() + " kinds of type " + type + ": "
                        + other.getClass().getName() + " and " + plugin.getClass().getName());
            }
        }
    }

    /**
     * Every implementation of {@code service} registered through {@link ServiceLoader} on the class
     * path of {@code service}: the application's own first (those from the jar or class folder of
     * {@code service}), in the order of their registration file, then any others (a plug-in
     * jar's, a test's).
     *
     * <p>{@code service} is the raw class of a generic extension point ({@code SinkPlugin.class}
     * for a {@code PluginRegistry<SinkPlugin<?>>}), hence {@code ? super P}.
     */
    @SuppressWarnings("unchecked") // ServiceLoader hands out instances of service, which are Ps
    public static <P extends Plugin<?>> PluginRegistry<P> load(Class<? super P> service) {
        var own = new ArrayList<P>();
        var others = new ArrayList<P>();
        ServiceLoader.load(service, service.getClassLoader())
                .forEach(plugin -> (isOwn(plugin, service) ? own : others).add((P) plugin));
        own.addAll(others);
        return new PluginRegistry<>(own);
    }

    /** Whether {@code plugin} comes from the same jar (or class folder) as the extension point {@code service}. */
    public static boolean isOwn(Object plugin, Class<?> service) {
        return Objects.equals(location(plugin.getClass()), location(service));
    }

    private static Object location(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        return source == null ? null : source.getLocation();
    }

    /** The kinds, in registration order. */
    public List<P> plugins() {
        return List.copyOf(byType.values());
    }

    /** The types, in registration order: the values an entry's {@code type} may take. */
    public List<String> types() {
        return List.copyOf(byType.keySet());
    }

    public Optional<P> plugin(String type) {
        return Optional.ofNullable(byType.get(type));
    }

    @Override
    public void close() {
        for (P plugin : byType.values()) {
            try {
                plugin.close();
            } catch (RuntimeException e) {
                log.warn("Closing the {} {} kind failed", plugin.kind().type(), plugin.kind().family(), e);
            }
        }
    }
}
