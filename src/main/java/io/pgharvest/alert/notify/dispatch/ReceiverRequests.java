package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.AlertReceiverPlugin;
import io.pgharvest.alert.notify.ReceiverDefinition;
import io.pgharvest.alert.notify.ReceiverRoute;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.support.plugin.PluginKind;
import io.pgharvest.support.plugin.PluginRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The receivers API's JSON, read and written in one place: a body {@code {"name", "type",
 * "route", ...options}} becomes a {@link ReceiverDefinition}; a definition goes out with every
 * secret option as {@link #MASK}. A replace may send the mask back to keep a stored secret, but
 * only while every other option stays as stored: a caller holding only the API token cannot send
 * the stored password or token somewhere else.
 */
final class ReceiverRequests {

    static final String MASK = ConnectionString.MASK;
    private static final Set<String> RESERVED = Set.of("name", "type", "route");
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

    private final PluginRegistry<AlertReceiverPlugin<?>> registry;

    ReceiverRequests(PluginRegistry<AlertReceiverPlugin<?>> registry) {
        this.registry = registry;
    }

    /** @throws NotifyInputException naming each field that is missing or of the wrong shape */
    ReceiverDefinition read(Map<String, Object> body, String pathName) {
        var problems = new ArrayList<FieldProblem>();
        String name = text(body, "name", problems);
        if (pathName != null) {
            if (name == null && !body.containsKey("name")) {
                name = pathName;
                problems.removeIf(p -> p.field().equals("name"));
            } else if (name != null && !name.equals(pathName)) {
                problems.add(new FieldProblem("name", "must be the name in the path (renaming is a create and a delete)"));
            }
        }
        String type = text(body, "type", problems);
        ReceiverRoute route = ReceiverRoute.EVERYTHING;
        if (body.get("route") != null) {
            try {
                route = JSON.convertValue(body.get("route"), ReceiverRoute.class);
            } catch (JacksonException e) {
                problems.add(new FieldProblem("route", "must be {\"severities\": [...], \"matchers\": [{\"name\","
                        + " \"value\", \"isRegex\", \"isEqual\"}]}"));
            }
        }
        var options = new LinkedHashMap<String, Object>();
        body.forEach((key, value) -> {
            if (!RESERVED.contains(key)) {
                options.put(key, value);
            }
        });
        if (!problems.isEmpty()) {
            throw new NotifyInputException("receiver", problems);
        }
        return new ReceiverDefinition(name, type, options, route);
    }

    private static String text(Map<String, Object> body, String field, List<FieldProblem> problems) {
        Object value = body.get(field);
        if (value instanceof String text && !text.isBlank()) {
            return text;
        }
        problems.add(new FieldProblem(field, value == null ? "is required" : "must be a non-empty string"));
        return null;
    }

    /**
     * {@code given} with each secret option that is the mask replaced by {@code stored}'s value.
     *
     * @throws NotifyInputException naming the option when the mask cannot be honoured
     */
    ReceiverDefinition keepStoredSecrets(ReceiverDefinition given, ReceiverDefinition stored) {
        Set<String> secrets = secrets(given.type());
        var masked = given.options().entrySet().stream()
                .filter(e -> secrets.contains(PluginKind.kebab(e.getKey())) && isMask(e.getValue()))
                .map(Map.Entry::getKey).toList();
        if (masked.isEmpty()) {
            return given;
        }
        var problems = new ArrayList<FieldProblem>();
        boolean sameElsewhere = stored != null && stored.type().equals(given.type())
                && withoutSecrets(given).equals(withoutSecrets(stored));
        var options = new LinkedHashMap<>(given.options());
        for (String option : masked) {
            Object kept = stored == null ? null : stored.options().get(option);
            if (!sameElsewhere || kept == null) {
                problems.add(new FieldProblem(option, "is the mask " + MASK + ", which keeps the stored value only"
                        + " while the type and every other option stay as stored; send the value itself"));
            } else {
                options.put(option, kept);
            }
        }
        if (!problems.isEmpty()) {
            throw new NotifyInputException("receiver '" + given.name() + "'", problems);
        }
        return new ReceiverDefinition(given.name(), given.type(), options, given.route());
    }

    /** The API's view: options as given, secrets as the mask. */
    Map<String, Object> write(ReceiverDefinition definition) {
        Set<String> secrets = secrets(definition.type());
        var out = new LinkedHashMap<String, Object>();
        out.put("name", definition.name());
        out.put("type", definition.type());
        definition.options().forEach((option, value) -> out.put(option,
                secrets.contains(PluginKind.kebab(option)) ? mask(value) : value));
        out.put("route", definition.route());
        return out;
    }

    private Set<String> secrets(String type) {
        return registry.plugin(type).map(AlertReceiverPlugin::secretOptions).orElse(Set.of());
    }

    private Map<String, Object> withoutSecrets(ReceiverDefinition definition) {
        Set<String> secrets = secrets(definition.type());
        var out = new LinkedHashMap<String, Object>();
        definition.options().forEach((option, value) -> {
            if (!secrets.contains(PluginKind.kebab(option))) {
                out.put(PluginKind.kebab(option), value);
            }
        });
        return out;
    }

    private static Object mask(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(v -> MASK).toList();
        }
        return value == null ? null : MASK;
    }

    private static boolean isMask(Object value) {
        if (value instanceof List<?> list) {
            return !list.isEmpty() && list.stream().allMatch(v -> Objects.equals(v, MASK));
        }
        return MASK.equals(value);
    }
}
