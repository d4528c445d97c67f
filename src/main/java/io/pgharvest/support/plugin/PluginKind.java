package io.pgharvest.support.plugin;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a kind of plug-in is, as configuration binding, the API, the console and the docs see it.
 *
 * @param family what the extension point is called in messages ({@code sink}, {@code history
 *     reader}, {@code alert receiver})
 * @param type the value of the entry's {@code type}, lower case with dashes
 * @param description one line: what this kind does
 * @param settingsClass the record the kind's own options bind to: its components are the options
 *     (camelCase, kebab-case in configuration)
 * @param options one per component of {@code settingsClass}, in the same order, as the docs list them
 * @param <S> the settings record
 * @throws IllegalArgumentException for a malformed type, or options that do not describe the record
 */
public record PluginKind<S extends Record & PluginSettings>(String family, String type, String description,
        Class<S> settingsClass, List<PluginOption> options) {

    private static final Pattern TYPE = Pattern.compile("[a-z][a-z0-9-]{0,63}");

    public PluginKind {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(settingsClass, "settingsClass");
        options = List.copyOf(options);
        if (type == null || !TYPE.matcher(type).matches()) {
            throw new IllegalArgumentException("invalid " + family + " type '" + type
                    + "' (lower-case letters, digits and '-')");
        }
        List<String> declared = optionNames(settingsClass);
        List<String> documented = options.stream().map(PluginOption::name).toList();
        if (!documented.equals(declared)) {
            throw new IllegalArgumentException("the " + type + " " + family + " documents the options " + documented
                    + " but its settings " + settingsClass.getName() + " have " + declared);
        }
    }

    /** The option {@code name} (kebab-case, or camelCase as a JSON body spells it), if the kind has it. */
    public java.util.Optional<PluginOption> option(String name) {
        String wanted = kebab(name);
        return options.stream().filter(option -> option.name().equals(wanted)).findFirst();
    }

    /** The configuration names (kebab-case) of a record's components, in declaration order. */
    public static List<String> optionNames(Class<? extends Record> settings) {
        return Arrays.stream(settings.getRecordComponents()).map(RecordComponent::getName)
                .map(PluginKind::kebab).toList();
    }

    /** {@code partitionInterval} -> {@code partition-interval}; a kebab-case name stays as it is. */
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
}
