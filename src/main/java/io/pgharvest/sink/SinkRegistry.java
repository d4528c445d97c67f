package io.pgharvest.sink;

import java.lang.reflect.RecordComponent;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kinds of sink this build has, by type: every {@link SinkPlugin} registered in
 * {@code META-INF/services/io.pgharvest.sink.SinkPlugin}, in the order the class path lists them
 * (the application's own first). A kind whose options do not describe its settings record, or two
 * kinds of one type, stop start-up. Immutable once built; closing it closes every kind.
 */
public final class SinkRegistry implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SinkRegistry.class);
    private static final Pattern TYPE = Pattern.compile("[a-z][a-z0-9-]{0,63}");

    private final Map<String, SinkPlugin<?>> byType = new LinkedHashMap<>();

    /** @throws IllegalArgumentException naming the plugin classes at fault */
    public SinkRegistry(Collection<? extends SinkPlugin<?>> plugins) {
        for (SinkPlugin<?> plugin : plugins) {
            String type = plugin.type();
            if (type == null || !TYPE.matcher(type).matches()) {
                throw new IllegalArgumentException(plugin.getClass().getName() + " has an invalid sink type '" + type
                        + "' (lower-case letters, digits and '-')");
            }
            checkOptions(plugin);
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

    /** The configuration names (kebab-case) of a settings record's components, in declaration order. */
    public static List<String> optionNames(Class<? extends Record> settings) {
        return Arrays.stream(settings.getRecordComponents()).map(RecordComponent::getName)
                .map(SinkRegistry::kebab).toList();
    }

    /** {@code partitionInterval} -> {@code partition-interval}. */
    public static String kebab(String camel) {
        var out = new StringBuilder(camel.length() + 4);
        for (char ch : camel.toCharArray()) {
            if (Character.isUpperCase(ch)) {
                out.append('-').append(Character.toLowerCase(ch));
            } else {
                out.append(ch);
            }
        }
        return out.toString();
    }

    @Override
    public void close() {
        for (SinkPlugin<?> plugin : byType.values()) {
            try {
                plugin.close();
            } catch (RuntimeException e) {
                log.warn("Closing the {} sink kind failed", plugin.type(), e);
            }
        }
    }

    private static void checkOptions(SinkPlugin<?> plugin) {
        List<String> declared = optionNames(plugin.settingsClass());
        List<String> documented = plugin.options().stream().map(SinkOption::name).toList();
        if (!documented.equals(declared)) {
            throw new IllegalArgumentException(plugin.getClass().getName() + " documents the options " + documented
                    + " but its settings " + plugin.settingsClass().getName() + " have " + declared);
        }
    }
}
