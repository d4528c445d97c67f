package io.pgharvest.source;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.BlockingQuery;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.NoSuchItemException;
import io.pgharvest.store.Stored;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import java.net.URI;
import java.util.List;
import org.springframework.http.HttpStatus;
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

    SourceController(ConfigStore store) {
        this.store = store;
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
        long seen = BlockingQuery.parse(index, wait).await(store.changes(StoreTable.SOURCES));
        ConfigSnapshot snapshot = store.snapshot();
        List<SourceResponse> sources = snapshot.sources().values().stream()
                .map(source -> SourceResponse.of(source, snapshot.modifyIndex(StoreTable.SOURCES, source.name())))
                .toList();
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(seen)).body(sources);
    }

    @PostMapping
    @Operation(summary = "Create a source")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "Invalid source; errors names each field",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "409", description = "A source of that name exists",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<SourceResponse> create(@Valid @RequestBody SourceRequest request) {
        Stored<Source> stored = store.createSource(request.toSource(null, store.snapshot()));
        return respond(stored, store.changes(StoreTable.SOURCES).index());
    }

    @GetMapping("/{name}")
    @Operation(summary = "Get a source")
    @ApiResponse(responseCode = "200", description = "The source")
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<SourceResponse> get(@PathVariable String name) {
        long index = store.changes(StoreTable.SOURCES).index();
        ConfigSnapshot snapshot = store.snapshot();
        Source source = snapshot.sources().get(name);
        if (source == null) {
            throw new NoSuchItemException(StoreTable.SOURCES, name);
        }
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(index))
                .body(SourceResponse.of(source, snapshot.modifyIndex(StoreTable.SOURCES, name)));
    }

    @PutMapping("/{name}")
    @Operation(summary = "Create or replace a source",
            description = "A connStr whose password is ******** keeps the stored password, provided host, port,"
                    + " user and database are unchanged.")
    @ApiResponse(responseCode = "200", description = "Replaced")
    @ApiResponse(responseCode = "201", description = "Created")
    @ApiResponse(responseCode = "400", description = "Invalid source; errors names each field",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<SourceResponse> put(@PathVariable String name, @Valid @RequestBody SourceRequest request) {
        Source source = request.toSource(name, store.snapshot());
        Stored<Source> stored = store.putSource(
                MaskedPassword.keepStored(source, store.snapshot().sources().get(source.name())));
        return respond(stored, store.changes(StoreTable.SOURCES).index());
    }

    @DeleteMapping("/{name}")
    @Operation(summary = "Delete a source")
    @ApiResponse(responseCode = "204", description = "Deleted",
            headers = @Header(name = INDEX_HEADER, description = "store index of the deletion"))
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<Void> delete(@PathVariable String name) {
        long index = store.deleteSource(name);
        return ResponseEntity.noContent().header(INDEX_HEADER, Long.toString(index)).build();
    }

    private static ResponseEntity<SourceResponse> respond(Stored<Source> stored, long tableIndex) {
        var body = SourceResponse.of(stored.item(), stored.modifyIndex());
        var builder = stored.created()
                ? ResponseEntity.status(HttpStatus.CREATED).location(URI.create("/api/v1/sources/" + body.name()))
                : ResponseEntity.ok();
        return builder.header(INDEX_HEADER, Long.toString(tableIndex)).body(body);
    }
}
