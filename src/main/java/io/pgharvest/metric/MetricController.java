package io.pgharvest.metric;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.TableResource;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The metric catalog: built-in metrics plus the operator's own, which may override them. */
@RestController
@RequestMapping("/api/v1/metrics")
@Tag(name = "Metrics", description = "SQL metric definitions")
class MetricController {

    private final ConfigStore store;
    private final TableResource<MetricDefinition, MetricResponse> metrics;

    MetricController(ConfigStore store) {
        this.store = store;
        this.metrics = new TableResource<>(store, StoreTable.METRICS, "/api/v1/metrics", ConfigSnapshot::metrics,
                MetricDefinition::name, (metric, modifyIndex) -> MetricResponse.of(metric,
                        Origin.of(store.origin(StoreTable.METRICS, metric.name())), modifyIndex));
    }

    @GetMapping
    @Operation(summary = "List metrics", description = "Built-in and operator metrics. A blocking query when index is given.")
    @ApiResponse(responseCode = "200", description = "All metrics, by name",
            headers = @Header(name = INDEX_HEADER, description = "index of the metrics table"))
    @ApiResponse(responseCode = "400", description = "index or wait does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<List<MetricResponse>> list(
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        return metrics.list(index, wait);
    }

    @PostMapping
    @Operation(summary = "Create a metric")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "Invalid metric; errors names each field",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "A metric of that name exists (built-in ones too: use PUT to override)",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<MetricResponse> create(@RequestBody MetricRequest request) {
        return metrics.written(store.createMetric(request.toDefinition(null)));
    }

    @GetMapping("/{name}")
    @Operation(summary = "Get a metric")
    @ApiResponse(responseCode = "200", description = "The metric")
    @ApiResponse(responseCode = "404", description = "No such metric",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<MetricResponse> get(@PathVariable String name) {
        return metrics.get(name);
    }

    @PutMapping("/{name}")
    @Operation(summary = "Create, replace or override a metric",
            description = "On a built-in name this creates the operator's override.")
    @ApiResponse(responseCode = "200", description = "Replaced or overridden")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "Invalid metric; errors names each field",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<MetricResponse> put(@PathVariable String name, @RequestBody MetricRequest request) {
        return metrics.written(store.putMetric(request.toDefinition(name)));
    }

    @DeleteMapping("/{name}")
    @Operation(summary = "Delete a metric", description = "Deleting an override restores the built-in metric.")
    @ApiResponse(responseCode = "204", description = "Deleted, or reverted to the built-in",
            headers = @Header(name = INDEX_HEADER, description = "store index of the deletion"))
    @ApiResponse(responseCode = "404", description = "No such metric",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "Built in (not deletable), or still used by sources or presets"
            + " (usedBy lists them)",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<Void> delete(@PathVariable String name) {
        return metrics.deleted(store.deleteMetric(name));
    }
}
