package io.pgharvest.sink;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a kind of sink is, as the configuration binding, the API, the console and the docs see it.
 *
 * @param type the {@code pgharvest.sinks[i].type} of the kind, lower case with dashes; also the
 *     default sink name
 * @param description one line: where this kind of sink writes
 * @param settingsClass the record the kind's own options bind to: its components are the options
 *     (camelCase, bound in kebab-case)
 * @param options one per component of {@code settingsClass}, in the same order, as the docs list them
 * @param <S> the settings record
 * @throws IllegalArgumentException for a malformed type, or options that do not describe the record
 */
public record SinkKind<S extends Record & SinkSettings>(String type, String description, Class<S> settingsClass,
        List<SinkOption> options) {

    private static final Pattern TYPE = Pattern.compile("[a-z][a-z0-9-]{0,63}");

    public SinkKind {
        Objects.requireNonNull(description, "description");
        options = List.copyOf(options);
        if (type == null || !TYPE.matcher(type).matches()) {
            throw new IllegalArgumentException("invalid sink type '" + type + "' (lower-case letters, digits and '-')");
        }
        List<String> declared = optionNames(settingsClass);
        List<String> documented = options.stream().map(SinkOption::name).toList();
        if (!documented.equals(declared)) {
            throw new IllegalArgumentException("the " + type + " sink documents the options " + documented
                    + " but its settings " + settingsClass.getName() + " have " + declared);
        }
    }

    /** The configuration names (kebab-case) of a record's components, in declaration order. */
    public static List<String> optionNames(Class<? extends Record> settings) {
        return Arrays.stream(settings.getRecordComponents()).map(RecordComponent::getName)
                .map(SinkKind::kebab).toList();
    }

    /** {@code partitionInterval} -> {@code partition-interval}. */
    static String kebab(String camel) {
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
