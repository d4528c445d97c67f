package io.pgharvest.config.plugin;

import io.pgharvest.support.plugin.Plugin;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import io.pgharvest.support.plugin.PluginRegistry;
import io.pgharvest.support.plugin.PluginSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.env.Environment;

/**
 * Binds one list of plug-ins, {@code pgharvest.<list>}: each entry's common options to the list's
 * record {@code C} and, by its {@code type}, the rest to that kind's settings record. An unknown
 * type, an option that belongs to another kind or to none, and every kind's own checks are
 * collected and reported together, each naming the entry and the option; nothing is started
 * before all entries pass.
 *
 * <p>Like Spring Boot's own list binding, the entries come from the one property source that has
 * the highest precedence among those defining the list (a list is replaced, not merged);
 * placeholders resolve against the whole environment.
 *
 * @param <P> the extension point's plug-in interface
 * @param <C> the record of the options every entry of the list has
 */
public final class PluginEntries<P extends Plugin<?>, C extends Record & EntryOptions> {

    private final String family;
    private final String root;
    private final ConfigurationPropertyName rootName;
    private final PluginRegistry<P> registry;
    private final Class<C> commonClass;

    /**
     * @param family what one entry is called in messages ({@code sink}, {@code history reader})
     * @param root the list's property, e.g. {@code pgharvest.sinks}
     * @param registry the kinds an entry's {@code type} may name
     * @param commonClass the record of the options every entry has besides its kind's own
     */
    public PluginEntries(String family, String root, PluginRegistry<P> registry, Class<C> commonClass) {
        this.family = Objects.requireNonNull(family, "family");
        this.root = Objects.requireNonNull(root, "root");
        this.rootName = ConfigurationPropertyName.of(root);
        this.registry = Objects.requireNonNull(registry, "registry");
        this.commonClass = Objects.requireNonNull(commonClass, "commonClass");
    }

    /**
     * The configured entries, bound and named; empty when none are configured.
     *
     * @throws PluginConfigurationException listing every problem of every entry
     */
    public List<PluginEntry<P, C>> bind(Environment environment) {
        Optional<IterableConfigurationPropertySource> source = listSource(environment);
        if (source.isEmpty()) {
            return List.of();
        }
        var problems = new ArrayList<String>();
        Map<Integer, Set<String>> options = optionsByIndex(source.get(), problems);
        var binder = new Binder(List.of(source.get()), new PropertySourcesPlaceholdersResolver(environment),
                ApplicationConversionService.getSharedInstance());
        var entries = new ArrayList<PluginEntry<P, C>>();
        int size = options.isEmpty() ? 0 : options.keySet().stream().max(Integer::compare).orElseThrow() + 1;
        for (int i = 0; i < size; i++) {
            String prefix = root + "[" + i + "]";
            if (!options.containsKey(i)) {
                problems.add(prefix + " is missing: the entries of " + root + " are numbered from 0 without gaps");
                continue;
            }
            bindEntry(binder, prefix, options.get(i), problems).ifPresent(entries::add);
        }
        List<PluginEntry<P, C>> named = named(entries, problems);
        if (!problems.isEmpty()) {
            throw new PluginConfigurationException(family, problems);
        }
        return named;
    }

    /**
     * An entry of each of {@code types} that this build has, every option at its default, named
     * for its type: what runs when the list is not configured.
     */
    public List<PluginEntry<P, C>> defaults(List<String> types) {
        var entries = new ArrayList<PluginEntry<P, C>>();
        for (String type : types) {
            registry.plugin(type).ifPresent(plugin -> {
                var binder = new Binder(new MapConfigurationPropertySource(Map.of(root + ".type", type)));
                entries.add(new PluginEntry<>(root + " (default " + type + " " + family + ")", type, plugin,
                        binder.bindOrCreate(root, Bindable.of(commonClass)),
                        binder.bindOrCreate(root, Bindable.of(plugin.kind().settingsClass()))));
            });
        }
        return List.copyOf(entries);
    }

    private Optional<PluginEntry<P, C>> bindEntry(Binder binder, String prefix, Set<String> given,
            List<String> problems) {
        String type = binder.bind(prefix + ".type", String.class).map(String::strip).orElse(null);
        if (type == null || type.isEmpty()) {
            problems.add(prefix + ".type is required (" + String.join(", ", registry.types()) + ")");
            return Optional.empty();
        }
        Optional<P> plugin = registry.plugin(type.toLowerCase(Locale.ROOT));
        if (plugin.isEmpty()) {
            problems.add(prefix + ".type: this build has no " + family + " of type '" + type + "' (it has "
                    + String.join(", ", registry.types()) + ")");
            return Optional.empty();
        }
        checkOwnership(prefix, given, plugin.get().kind(), problems);
        C common = bind(binder, prefix, commonClass, problems);
        PluginSettings settings = bind(binder, prefix, plugin.get().kind().settingsClass(), problems);
        if (common == null || settings == null) {
            return Optional.empty();
        }
        problems.addAll(common.problems(prefix));
        problems.addAll(settings.problems(prefix));
        return Optional.of(new PluginEntry<>(prefix, common.name(), plugin.get(), common, settings));
    }

    /** Every option given must be a common one or the kind's own; the others are named with their owners. */
    private void checkOwnership(String prefix, Set<String> given, PluginKind<?> kind, List<String> problems) {
        Set<String> allowed = uniform(PluginKind.optionNames(commonClass));
        allowed.addAll(uniform(PluginKind.optionNames(kind.settingsClass())));
        for (String option : given) {
            if (allowed.contains(uniform(option))) {
                continue;
            }
            Map<String, PluginOption> owners = owners(option);
            if (owners.isEmpty()) {
                problems.add(prefix + "." + option + " is not an option of any " + family + " (the options of a "
                        + kind.type() + " " + family + " are "
                        + String.join(", ", PluginKind.optionNames(kind.settingsClass())) + ")");
            } else {
                PluginOption owned = owners.values().iterator().next();
                problems.add(prefix + "." + owned.name() + " applies to " + joined(owners.keySet()) + " " + family
                        + "s only (" + summary(owned.meaning()) + ")");
            }
        }
    }

    /** Type to option, for the kinds that have {@code option}. */
    private Map<String, PluginOption> owners(String option) {
        var owners = new LinkedHashMap<String, PluginOption>();
        for (P plugin : registry.plugins()) {
            plugin.kind().options().stream().filter(o -> uniform(o.name()).equals(uniform(option))).findFirst()
                    .ifPresent(o -> owners.put(plugin.kind().type(), o));
        }
        return owners;
    }

    private static <T> T bind(Binder binder, String prefix, Class<T> type, List<String> problems) {
        try {
            return binder.bindOrCreate(prefix, Bindable.of(type));
        } catch (BindException e) {
            // The property is named; a value that failed to convert is quoted only for non-text
            // options (durations, sizes, numbers), and secrets are all text, which always converts.
            String property = e.getProperty() == null ? prefix : e.getProperty().getName().toString();
            Throwable cause = e.getCause() == null ? e : e.getCause();
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause();
            }
            problems.add(property + " cannot be read: " + cause.getMessage());
            return null;
        }
    }

    /** The highest-precedence source that defines entries of the list. */
    private Optional<IterableConfigurationPropertySource> listSource(Environment environment) {
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable
                    && iterable.stream().anyMatch(rootName::isAncestorOf)) {
                return Optional.of(iterable);
            }
        }
        return Optional.empty();
    }

    /** Index to the options given for it (dashed), from the names below the list's root. */
    private Map<Integer, Set<String>> optionsByIndex(IterableConfigurationPropertySource source,
            List<String> problems) {
        Map<Integer, Set<String>> options = new TreeMap<>();
        int depth = rootName.getNumberOfElements();
        source.stream().filter(rootName::isAncestorOf).forEach(name -> {
            if (!name.isNumericIndex(depth)) {
                problems.add(name + ": " + root + " is a list; its entries are " + root + "[0], " + root + "[1], ...");
            } else if (name.getNumberOfElements() == depth + 1) {
                problems.add(name + " must be an entry with a type, not a value");
            } else {
                int index = Integer.parseInt(name.getElement(depth, Form.UNIFORM));
                options.computeIfAbsent(index, i -> new TreeSet<>()).add(name.getElement(depth + 1, Form.DASHED));
            }
        });
        return options;
    }

    /** Gives every entry a unique name: its own, its type, or type-index when a type repeats. */
    private List<PluginEntry<P, C>> named(List<PluginEntry<P, C>> entries, List<String> problems) {
        Map<String, Integer> perType = new HashMap<>();
        entries.forEach(entry -> perType.merge(entry.plugin().kind().type(), 1, Integer::sum));
        var names = new HashSet<String>();
        var result = new ArrayList<PluginEntry<P, C>>();
        for (PluginEntry<P, C> entry : entries) {
            String type = entry.plugin().kind().type();
            String name = entry.name() != null ? entry.name()
                    : perType.get(type) == 1 ? type : type + "-" + index(entry.property());
            if (!names.add(name)) {
                problems.add(entry.property() + ".name '" + name + "' is used by another " + family);
            }
            result.add(entry.named(name));
        }
        return List.copyOf(result);
    }

    private static String index(String property) {
        return property.substring(property.indexOf('[') + 1, property.indexOf(']'));
    }

    private static Set<String> uniform(List<String> names) {
        return names.stream().map(PluginEntries::uniform).collect(Collectors.toCollection(HashSet::new));
    }

    /** Spring Boot's relaxed form: {@code bearer-token}, {@code bearerToken} and {@code bearer_token} are one option. */
    private static String uniform(String name) {
        return name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
    }

    private static String joined(Set<String> types) {
        var list = new ArrayList<>(types);
        if (list.size() == 1) {
            return list.getFirst();
        }
        return String.join(", ", list.subList(0, list.size() - 1)) + " and " + list.getLast();
    }

    /** The meaning up to its first full stop or semicolon, lower-cased, for a one-line message. */
    private static String summary(String meaning) {
        int end = meaning.length();
        for (String stop : List.of(". ", "; ", ", e.g.")) {
            int at = meaning.indexOf(stop);
            if (at >= 0 && at < end) {
                end = at;
            }
        }
        String text = meaning.substring(0, end);
        return Character.toLowerCase(text.charAt(0)) + text.substring(1);
    }
}
