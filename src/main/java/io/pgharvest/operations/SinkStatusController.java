package io.pgharvest.operations;

import io.pgharvest.sink.dispatch.SinkDispatcher;
import io.pgharvest.sink.SinkStatus;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Each sink's delivery state, the same figures as the {@code sinks} health component, as a list
 * for the console. Sink errors are the sinks' own, already free of their credentials.
 */
@RestController
@Tag(name = "Operations")
class SinkStatusController {

    private final SinkDispatcher dispatcher;

    SinkStatusController(SinkDispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @GetMapping("/api/v1/sinks")
    @Operation(summary = "Delivery state of every sink",
            description = "Up or not, queued, spilled and dropped measurements, failures and the last error.")
    @ApiResponse(responseCode = "200", description = "The sinks, in configuration order")
    List<SinkStatus> sinks() {
        return dispatcher.statuses();
    }
}
