package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.AlertReceiverPlugin;
import io.pgharvest.alert.notify.Receiver;
import io.pgharvest.alert.notify.ReceiverDefinition;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.support.JacksonPaths;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginOption;
import io.pgharvest.support.plugin.PluginRegistry;
import io.pgharvest.support.plugin.PluginSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Binds a {@link ReceiverDefinition}'s options to its kind's settings record, by type: an unknown
 * type, an option the kind does not have, a value of the wrong shape and whatever the settings
 * record finds wrong are each a {@link FieldProblem} naming the option, and nothing is bound.
 */
public final class ReceiverBinder {

    private static final String PREFIX = "options";
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build();

    private final PluginRegistry<AlertReceiverPlugin<?>> registry;

    public ReceiverBinder(PluginRegistry<AlertReceiverPlugin<?>> registry) {
        this.registry = registry;
    }

    /** A receiver whose options are bound to its kind's settings. */
    public record Bound(ReceiverDefinition definition, AlertReceiverPlugin<?> plugin, Record settings) {

        /** A new receiver for these settings. */
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Receiver create() {
            return ((AlertReceiverPlugin) plugin).create(settings);
        }
    }

    /** @throws NotifyInputException naming every problem */
    public Bound bind(ReceiverDefinition definition) {
        var problems = new ArrayList<FieldProblem>();
        if (!NAME.matcher(definition.name()).matches()) {
            problems.add(new FieldProblem("name", "must be 1 to 63 lower-case letters, digits, '_' or '-',"
                    + " starting with a letter or digit"));
        }
        problems.addAll(definition.route().problems("route"));
        AlertReceiverPlugin<?> plugin = registry.plugin(definition.type()).orElse(null);
        if (plugin == null) {
            problems.add(new FieldProblem("type", "unknown receiver type; expected one of " + registry.types()));
            throw new NotifyInputException("receiver '" + definition.name() + "'", problems);
        }
        Record settings = settings(plugin.kind(), definition.options(), problems);
        if (!problems.isEmpty()) {
            throw new NotifyInputException("receiver '" + definition.name() + "'", problems);
        }
        return new Bound(definition, plugin, settings);
    }

    private static Record settings(PluginKind<?> kind, Map<String, Object> options, List<FieldProblem> problems) {
        int before = problems.size();
        var byComponent = new LinkedHashMap<String, Object>();
        List<String> known = kind.options().stream().map(PluginOption::name).map(ReceiverBinder::camel).toList();
        options.forEach((name, value) -> {
            if (kind.option(name).isEmpty()) {
                problems.add(new FieldProblem(name, "is not an option of the " + kind.type() + " receiver;"
                        + " expected one of " + known));
            } else {
                byComponent.put(camel(PluginKind.kebab(name)), value);
            }
        });
        if (problems.size() > before) {
            return null;
        }
        Record settings;
        try {
            settings = JSON.convertValue(byComponent, kind.settingsClass());
        } catch (JacksonException e) {
            // The value is not quoted: it may be a secret.
            String field = e.getPath().isEmpty() ? "options" : JacksonPaths.describe(e.getPath());
            problems.add(new FieldProblem(field, "has the wrong type or shape"));
            return null;
        } catch (IllegalArgumentException e) {
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                if (cause instanceof JacksonException jackson && !jackson.getPath().isEmpty()) {
                    problems.add(new FieldProblem(JacksonPaths.describe(jackson.getPath()), "has the wrong type or shape"));
                    return null;
                }
            }
            problems.add(new FieldProblem("options", "have the wrong type or shape"));
            return null;
        }
        for (String problem : ((PluginSettings) settings).problems(PREFIX)) {
            problems.add(fieldProblem(problem));
        }
        return settings;
    }

    /**
     * {@code "options.urls[1] must be ..."} (the settings records' wording, as sinks' are) as
     * field {@code urls[1]} and message {@code must be ...}.
     */
    static FieldProblem fieldProblem(String problem) {
        String text = problem.startsWith(PREFIX + ".") ? problem.substring(PREFIX.length() + 1) : problem;
        int space = text.indexOf(' ');
        if (space <= 0) {
            return new FieldProblem("options", text);
        }
        String field = text.substring(0, space);
        field = field.endsWith(":") ? field.substring(0, field.length() - 1) : field;
        return new FieldProblem(camel(field), text.substring(space + 1));
    }

    /** {@code smtp-host} -> {@code smtpHost}. */
    static String camel(String kebab) {
        var out = new StringBuilder(kebab.length());
        boolean upper = false;
        for (char ch : kebab.toCharArray()) {
            if (ch == '-') {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(ch) : ch);
                upper = false;
            }
        }
        return out.toString();
    }
}
