package io.pgharvest.metric;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.TableResource;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Preset;
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

/** Presets: named metric selections, built-in plus the operator's own, which may override them. */
@RestController
@RequestMapping("/api/v1/presets")
@Tag(name = "Presets", description = "Named sets of metrics with intervals")
class PresetController {

    private final ConfigStore store;
    private final TableResource<Preset, PresetResponse> presets;

    PresetController(ConfigStore store) {
        this.store = store;
        this.presets = new TableResource<>(store, StoreTable.PRESETS, "/api/v1/presets", ConfigSnapshot::presets,
                Preset::name, (preset, modifyIndex) -> PresetResponse.of(preset,
                        Origin.of(store.origin(StoreTable.PRESETS, preset.name())), modifyIndex));
    }

    @GetMapping
    @Operation(summary = "List presets", description = "Built-in and operator presets. A blocking query when index is given.")
    @ApiResponse(responseCode = "200", description = "All presets, by name",
            headers = @Header(name = INDEX_HEADER, description = "index of the presets table"))
    @ApiResponse(responseCode = "400", description = "index or wait does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<List<PresetResponse>> list(
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        return presets.list(index, wait);
    }

    @PostMapping
    @Operation(summary = "Create a preset")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "Invalid preset; errors names each field",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "A preset of that name exists (built-in ones too: use PUT to override)",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<PresetResponse> create(@RequestBody PresetRequest request) {
        return presets.written(store.createPreset(request.toPreset(null)));
    }

    @GetMapping("/{name}")
    @Operation(summary = "Get a preset")
    @ApiResponse(responseCode = "200", description = "The preset")
    @ApiResponse(responseCode = "404", description = "No such preset",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<PresetResponse> get(@PathVariable String name) {
        return presets.get(name);
    }

    @PutMapping("/{name}")
    @Operation(summary = "Create, replace or override a preset",
            description = "On a built-in name this creates the operator's override.")
    @ApiResponse(responseCode = "200", description = "Replaced or overridden")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "Invalid preset; errors names each field",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<PresetResponse> put(@PathVariable String name, @RequestBody PresetRequest request) {
        return presets.written(store.putPreset(request.toPreset(name)));
    }

    @DeleteMapping("/{name}")
    @Operation(summary = "Delete a preset", description = "Deleting an override restores the built-in preset.")
    @ApiResponse(responseCode = "204", description = "Deleted, or reverted to the built-in",
            headers = @Header(name = INDEX_HEADER, description = "store index of the deletion"))
    @ApiResponse(responseCode = "404", description = "No such preset",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "Built in (not deletable), or still used by sources"
            + " (usedBy lists them)",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<Void> delete(@PathVariable String name) {
        return presets.deleted(store.deletePreset(name));
    }
}
