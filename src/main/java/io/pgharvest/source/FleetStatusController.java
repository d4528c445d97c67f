package io.pgharvest.source;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.BlockingQuery;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The whole fleet's state in one answer, a blocking query on the same status notifier as a
 * single source's status: the console's overview keeps one long-poll open here for every source,
 * where a poll per source would be a thousand requests.
 */
@RestController
@Tag(name = "Sources")
class FleetStatusController {

    private final SourceStatusProvider statuses;
    private final ShutdownUnderway shutdown;
    private final FleetLedger ledger;

    FleetStatusController(SourceStatusProvider statuses, ShutdownUnderway shutdown, FleetLedger ledger) {
        this.statuses = statuses;
        this.shutdown = shutdown;
        this.ledger = ledger;
    }

    @GetMapping("/api/v1/status")
    @Operation(summary = "Runtime status of every source",
            description = "Each source's state, last tick, solo-lane metrics, newest error and owner instance, and"
                    + " the number of sources per state, a page at a time in name order (limit, default "
                    + FleetQuery.DEFAULT_LIMIT + ", at most " + FleetQuery.MAX_LIMIT + "; next names the following"
                    + " page). With since (the changeIndex of an earlier answer) only what changed after it: changed"
                    + " sources, sources whose only change is a newer tick (ticks) and removed names; whole is true"
                    + " when since is too old to answer as changes. A blocking query when index is given: it"
                    + " answers when any source's status changes significantly (state, lane, error) or the"
                    + " configuration changes.")
    @ApiResponse(responseCode = "200", description = "The fleet, or its changes",
            headers = @Header(name = INDEX_HEADER, description = "index of status changes"))
    @ApiResponse(responseCode = "400", description = "index, wait, since, after or limit does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "503", description = "The collector is shutting down (also for a query parked before)",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<FleetStatus> fleet(
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait,
            @Parameter(description = "the changeIndex of an earlier answer: only the changes after it are sent")
            @RequestParam(required = false) String since,
            @Parameter(description = "the last source name of the previous page (its next link carries it)")
            @RequestParam(required = false) String after,
            @Parameter(description = "the most sources in the answer: 1 to " + FleetQuery.MAX_LIMIT + " (default "
                    + FleetQuery.DEFAULT_LIMIT + ")")
            @RequestParam(required = false) String limit) {
        FleetQuery query = FleetQuery.parse(index, wait, since, after, limit);
        long seen = query.blocking().await(statuses.statusChanges());
        shutdown.refuseStatusWhileClosing();
        FleetLedger.Picture picture = ledger.read(() -> statuses.statuses().stream().map(FleetEntry::of).toList());
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(seen)).body(FleetStatus.page(picture, query));
    }
}
