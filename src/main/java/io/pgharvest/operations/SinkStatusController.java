package io.pgharvest.operations;

import io.pgharvest.sink.SinkPlugin;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import io.pgharvest.support.plugin.PluginOption;
import io.pgharvest.support.plugin.PluginRegistry;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Each sink's delivery state, the same figures as the {@code sinks} health component, as a list
 * for the console, and the kinds of sink this build has, from the sink registry. Sink errors are
 * the sinks' own, already free of their credentials.
 */
@RestController
@Tag(name = "Operations")
class SinkStatusController {

    private final SinkDispatcher dispatcher;
    private final PluginRegistry<SinkPlugin<?>> registry;

    SinkStatusController(SinkDispatcher dispatcher, PluginRegistry<SinkPlugin<?>> registry) {
        this.dispatcher = dispatcher;
        this.registry = registry;
    }

    @GetMapping("/api/v1/sinks")
    @Operation(summary = "Delivery state of every sink",
            description = "Up or not, queued, spilled and dropped measurements, failures and the last error.")
    @ApiResponse(responseCode = "200", description = "The sinks, in configuration order")
    List<SinkStatus> sinks() {
        return dispatcher.statuses();
    }

    @GetMapping("/api/v1/sink-types")
    @Operation(summary = "List the kinds of sink",
            description = "Every value a pgharvest.sinks entry's type may take, in registration order, with the "
                    + "options of its own (besides those every sink has: name, batching, queue, spill and retry).")
    @ApiResponse(responseCode = "200", description = "The kinds of sink this build has")
    List<SinkTypeResponse> sinkTypes() {
        return registry.plugins().stream()
                .map(plugin -> plugin.kind())
                .map(kind -> new SinkTypeResponse(kind.type(), kind.description(), kind.options()))
                .toList();
    }

    @Schema(name = "SinkKind", description = "A kind of sink")
    record SinkTypeResponse(
            @Schema(example = "postgres") String type,
            @Schema(description = "where this kind of sink writes") String description,
            @Schema(description = "the options of its own, with their defaults") List<PluginOption> options) {
    }
}
