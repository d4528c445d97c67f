package io.pgharvest.alert.notify.dispatch;

import io.pgharvest.alert.notify.AlertReceiverPlugin;
import io.pgharvest.alert.notify.NotifyStore;
import io.pgharvest.alert.notify.ReceiverDefinition;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.support.plugin.PluginRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Create, read, replace and delete alert receivers, list the kinds this build has, and show what
 * the outbox did with a receiver's notifications. Secret options only ever leave as the mask.
 */
@RestController
@Tag(name = "Alert receivers", description = "Where alert notifications go")
class ReceiverController {

    private static final String BASE = "/api/v1/alert-receivers";

    private final NotifyStore store;
    private final ReceiverCatalog catalog;
    private final PluginRegistry<AlertReceiverPlugin<?>> registry;
    private final ReceiverBinder binder;
    private final ReceiverRequests requests;

    ReceiverController(NotifyStore store, ReceiverCatalog catalog, PluginRegistry<AlertReceiverPlugin<?>> registry) {
        this.store = store;
        this.catalog = catalog;
        this.registry = registry;
        this.binder = new ReceiverBinder(registry);
        this.requests = new ReceiverRequests(registry);
    }

    /** A kind's option as the API lists it. */
    record OptionResponse(String name, String defaultValue, String meaning, boolean secret) {
    }

    record TypeResponse(String type, String description, List<OptionResponse> options) {
    }

    /** What the outbox did with one notification. */
    record NotificationResponse(String alertname, String fingerprint, String event, String status, int attempts,
            Instant createdAt, Instant nextAttemptAt, String note) {
    }

    @GetMapping("/api/v1/alert-receiver-types")
    @Operation(summary = "List the kinds of alert receiver", description = "Every value a receiver's type may take,"
            + " with its options; secret options are never shown back.")
    List<TypeResponse> types() {
        return registry.plugins().stream().map(plugin -> new TypeResponse(plugin.kind().type(),
                plugin.kind().description(), plugin.kind().options().stream()
                        .map(o -> new OptionResponse(ReceiverBinder.camel(o.name()), o.defaultValue(), o.meaning(),
                                plugin.secretOptions().contains(o.name())))
                        .toList())).toList();
    }

    @GetMapping(BASE)
    @Operation(summary = "List alert receivers")
    List<Map<String, Object>> list() {
        return store.receivers().stream().map(requests::write).toList();
    }

    @GetMapping(BASE + "/{name}")
    @Operation(summary = "Read an alert receiver")
    Map<String, Object> get(@PathVariable String name) {
        return requests.write(stored(name));
    }

    @PostMapping(BASE)
    @Operation(summary = "Create an alert receiver", description = "{\"name\", \"type\", \"route\", ...the type's"
            + " options}; a receiver without a route gets every alert.")
    ResponseEntity<Map<String, Object>> create(@RequestBody Map<String, Object> body) {
        ReceiverDefinition definition = requests.read(body, null);
        binder.bind(definition);
        if (!store.createReceiver(definition)) {
            throw new NotifyProblems.Duplicate("alert receiver '" + definition.name() + "' already exists");
        }
        catalog.refresh();
        return ResponseEntity.created(URI.create(BASE + "/" + definition.name())).body(requests.write(definition));
    }

    @PutMapping(BASE + "/{name}")
    @Operation(summary = "Create or replace an alert receiver", description = "A secret option sent back as the"
            + " mask keeps the stored value while the type and every other option stay as stored.")
    ResponseEntity<Map<String, Object>> put(@PathVariable String name, @RequestBody Map<String, Object> body) {
        ReceiverDefinition stored = store.receiver(name).orElse(null);
        ReceiverDefinition definition = requests.keepStoredSecrets(requests.read(body, name), stored);
        binder.bind(definition);
        boolean created = stored == null && store.createReceiver(definition);
        if (!created && !store.replaceReceiver(definition)) {
            throw new NotifyInputException("receiver '" + name + "'",
                    List.of(new FieldProblem("name", "was deleted while being replaced; send it again")));
        }
        catalog.refresh();
        return created ? ResponseEntity.created(URI.create(BASE + "/" + name)).body(requests.write(definition))
                : ResponseEntity.ok(requests.write(definition));
    }

    @DeleteMapping(BASE + "/{name}")
    @Operation(summary = "Delete an alert receiver", description = "Its pending notifications are abandoned.")
    ResponseEntity<Void> delete(@PathVariable String name) {
        if (!store.deleteReceiver(name)) {
            throw notFound(name);
        }
        catalog.refresh();
        return ResponseEntity.noContent().build();
    }

    @GetMapping(BASE + "/{name}/notifications")
    @Operation(summary = "What became of a receiver's notifications", description = "Pending, delivered, silenced,"
            + " superseded or abandoned, with attempts and the last failure; finished ones are kept for"
            + " pgharvest.alert.notifications.retention.")
    List<NotificationResponse> notifications(@PathVariable String name) {
        stored(name);
        return store.entries(name).stream().map(e -> new NotificationResponse(e.transition().rule(),
                e.key().fingerprint(), e.key().event(), e.status().name().toLowerCase(java.util.Locale.ROOT),
                e.attempts(), e.createdAt(), e.nextAttemptAt(), e.note())).toList();
    }

    private ReceiverDefinition stored(String name) {
        return store.receiver(name).orElseThrow(() -> notFound(name));
    }

    private static NotifyProblems.NotFound notFound(String name) {
        return new NotifyProblems.NotFound("alert receiver '" + io.pgharvest.model.BoundedText.of(name)
                + "' does not exist");
    }
}
