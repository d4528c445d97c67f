package io.pgharvest.history;

import io.pgharvest.sink.dispatch.ConfiguredSinks;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginRegistry;
import io.pgharvest.support.plugin.PluginSettings;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Binds {@code pgharvest.history}: each entry's {@code type} picks a kind of the registry, its
 * {@code name} is optional, every other option belongs to the kind's settings record. Without
 * entries the readers are derived from the configured sinks (a postgres sink gives a postgres
 * reader of the same database). Every problem of every entry is reported at once, each naming
 * the entry and the option.
 */
final class HistoryEntries {

    static final String ROOT = "pgharvest.history";
    private static final ConfigurationPropertyName ROOT_NAME = ConfigurationPropertyName.of(ROOT);
    private static final List<String> COMMON = List.of("type", "name");

    /** One reader to create: where it was configured, its name, its kind and bound settings. */
    record BoundReader(String property, String name, HistoryReaderPlugin<?> plugin, PluginSettings settings) {
    }

    private final PluginRegistry<HistoryReaderPlugin<?>> registry;

    HistoryEntries(PluginRegistry<HistoryReaderPlugin<?>> registry) {
        this.registry = registry;
    }

    /**
     * The configured entries; empty when {@code pgharvest.history} is not set.
     *
     * @throws HistoryConfigurationException listing every problem
     */
    List<BoundReader> bind(Environment environment) {
        TreeMap<Integer, Set<String>> given = new TreeMap<>();
        var problems = new ArrayList<String>();
        int depth = ROOT_NAME.getNumberOfElements();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.stream().filter(ROOT_NAME::isAncestorOf).forEach(name -> {
                    if (!name.isNumericIndex(depth) || name.getNumberOfElements() == depth + 1) {
                        problems.add(name + ": " + ROOT + " is a list of entries with a type: " + ROOT + "[0].type, ...");
                    } else {
                        given.computeIfAbsent(Integer.parseInt(name.getElement(depth, Form.UNIFORM)),
                                i -> new TreeSet<>()).add(name.getElement(depth + 1, Form.DASHED));
                    }
                });
            }
        }
        Binder binder = Binder.get(environment);
        var entries = new ArrayList<BoundReader>();
        int size = given.isEmpty() ? 0 : given.lastKey() + 1;
        for (int i = 0; i < size; i++) {
            String prefix = ROOT + "[" + i + "]";
            if (!given.containsKey(i)) {
                problems.add(prefix + " is missing: the entries of " + ROOT + " are numbered from 0 without gaps");
            } else {
                bindEntry(binder, prefix, given.get(i), problems, entries);
            }
        }
        var names = new HashSet<String>();
        for (BoundReader entry : entries) {
            if (!names.add(entry.name())) {
                problems.add(entry.property() + ".name '" + entry.name() + "' is used by another history reader");
            }
        }
        if (!problems.isEmpty()) {
            throw new HistoryConfigurationException(problems);
        }
        return List.copyOf(entries);
    }

    /** A reader for each configured sink some kind reads, in the sinks' order, named after the sink. */
    List<BoundReader> derived(List<ConfiguredSinks.Entry> sinks) {
        var entries = new ArrayList<BoundReader>();
        for (ConfiguredSinks.Entry sink : sinks) {
            for (HistoryReaderPlugin<?> plugin : registry.plugins()) {
                plugin.readerOf(sink).ifPresent(settings -> entries.add(new BoundReader(
                        sink.property() + " (the history of the " + sink.name() + " sink)", sink.name(), plugin,
                        settings)));
            }
        }
        return List.copyOf(entries);
    }

    private void bindEntry(Binder binder, String prefix, Set<String> given, List<String> problems,
            List<BoundReader> entries) {
        String type = binder.bind(prefix + ".type", String.class).map(String::strip).orElse("");
        if (type.isEmpty()) {
            problems.add(prefix + ".type is required (" + String.join(", ", registry.types()) + ")");
            return;
        }
        var plugin = registry.plugin(type.toLowerCase(Locale.ROOT));
        if (plugin.isEmpty()) {
            problems.add(prefix + ".type: this build has no history reader of type '" + type + "' (it has "
                    + String.join(", ", registry.types()) + ")");
            return;
        }
        PluginKind<?> kind = plugin.get().kind();
        List<String> options = PluginKind.optionNames(kind.settingsClass());
        for (String option : given) {
            if (!COMMON.contains(option) && !options.contains(option)) {
                problems.add(prefix + "." + option + " is not an option of a " + kind.type() + " history reader (its"
                        + " options are " + String.join(", ", COMMON) + ", " + String.join(", ", options) + ")");
            }
        }
        PluginSettings settings;
        try {
            settings = (PluginSettings) binder.bindOrCreate(prefix, Bindable.of(kind.settingsClass()));
        } catch (BindException e) {
            String property = e.getProperty() == null ? prefix : e.getProperty().getName().toString();
            Throwable cause = e;
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause();
            }
            problems.add(property + " cannot be read: " + cause.getMessage());
            return;
        }
        problems.addAll(settings.problems(prefix));
        String name = binder.bind(prefix + ".name", String.class).map(String::strip).orElse(kind.type() + "-" + index(prefix));
        entries.add(new BoundReader(prefix, name, plugin.get(), settings));
    }

    private static String index(String prefix) {
        return prefix.substring(prefix.indexOf('[') + 1, prefix.indexOf(']'));
    }
}
