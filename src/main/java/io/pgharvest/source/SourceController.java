package io.pgharvest.source;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.CheckAndSet;
import io.pgharvest.api.TableResource;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
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

/** Create, read, replace and delete monitored sources. Passwords only ever leave masked. */
@RestController
@RequestMapping("/api/v1/sources")
@Tag(name = "Sources", description = "Monitored PostgreSQL endpoints")
class SourceController {

    private final ConfigStore store;
    private final TableResource<Source, SourceResponse> sources;

    SourceController(ConfigStore store) {
        this.store = store;
        this.sources = new TableResource<>(store, StoreTable.SOURCES, "/api/v1/sources", ConfigSnapshot::sources,
                Source::name, SourceResponse::of);
    }

    @GetMapping
    @Operation(summary = "List sources", description = "A blocking query when index is given.")
    @ApiResponse(responseCode = "200", description = "All sources, by name",
            headers = @Header(name = INDEX_HEADER, description = "index of the sources table"))
    @ApiResponse(responseCode = "400", description = "index or wait does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<List<SourceResponse>> list(
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        return sources.list(index, wait);
    }

    @PostMapping
    @Operation(summary = "Create a source")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "Invalid source; errors names each field",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "A source of that name exists",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<SourceResponse> create(@Valid @RequestBody SourceRequest request) {
        return sources.written(store.createSource(request.toSource(null, store.snapshot())));
    }

    @GetMapping("/{name}")
    @Operation(summary = "Get a source")
    @ApiResponse(responseCode = "200", description = "The source")
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<SourceResponse> get(@PathVariable String name) {
        return sources.get(name);
    }

    @PutMapping("/{name}")
    @Operation(summary = "Create or replace a source",
            description = "A connStr whose password is ******** keeps the stored password, provided host, port,"
                    + " user and database are unchanged and sslmode, gssencmode and channel_binding are not weaker"
                    + " than the stored ones (else 400 naming connStr: send the password again).")
    @ApiResponse(responseCode = "200", description = "Replaced")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "Invalid source (errors names each field), or cas does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "stale-index: the source changed since the modifyIndex given as cas",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<SourceResponse> put(@PathVariable String name,
            @Parameter(description = CheckAndSet.PARAM_DESCRIPTION) @RequestParam(required = false) String cas,
            @Valid @RequestBody SourceRequest request) {
        var condition = CheckAndSet.parse(cas);
        Source source = request.toSource(name, store.snapshot());
        return sources.written(store.putSource(
                MaskedPassword.keepStored(source, store.snapshot().sources().get(source.name())), condition));
    }

    @DeleteMapping("/{name}")
    @Operation(summary = "Delete a source")
    @ApiResponse(responseCode = "204", description = "Deleted",
            headers = @Header(name = INDEX_HEADER, description = "store index of the deletion"))
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "stale-index: the source changed since the modifyIndex given as cas",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<Void> delete(@PathVariable String name,
            @Parameter(description = CheckAndSet.PARAM_DESCRIPTION) @RequestParam(required = false) String cas) {
        return sources.deleted(store.deleteSource(name, CheckAndSet.parse(cas)));
    }
}
