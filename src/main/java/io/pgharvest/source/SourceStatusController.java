package io.pgharvest.source;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.BlockingQuery;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.NoSuchItemException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** A source's runtime status, as the {@link SourceStatusProvider} in charge reports it. */
@RestController
@RequestMapping("/api/v1/sources/{name}")
@Tag(name = "Sources")
class SourceStatusController {

    private final SourceStatusProvider statuses;
    private final ShutdownUnderway shutdown;

    SourceStatusController(SourceStatusProvider statuses, ShutdownUnderway shutdown) {
        this.statuses = statuses;
        this.shutdown = shutdown;
    }

    @GetMapping("/status")
    @Operation(summary = "Runtime status of a source",
            description = "Until the collection engine runs, the configured state. A blocking query when index is given.")
    @ApiResponse(responseCode = "200", description = "The status",
            headers = @Header(name = INDEX_HEADER, description = "index of status changes"))
    @ApiResponse(responseCode = "400", description = "index or wait does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "503", description = "The collector is shutting down (also for a query parked before)",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<SourceStatus> status(@PathVariable String name,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        long seen = BlockingQuery.parse(index, wait).await(statuses.statusChanges());
        shutdown.refuseStatusWhileClosing();
        SourceStatus status = statuses.status(name).orElseThrow(() -> new NoSuchItemException(StoreTable.SOURCES, name));
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(seen)).body(status);
    }
}
