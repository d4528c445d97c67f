package io.pgharvest.window;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.BlockingQuery;
import io.pgharvest.api.InvalidParameterException;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.NoSuchItemException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The recent window over the API: a source's series for a span, and the fleet's key numbers. */
@RestController
@Tag(name = "Recent window", description = "Recent numeric series of each source, kept in memory for the charts")
class WindowController {

    private final RecentWindow window;
    private final ConfigStore store;
    private final Clock clock;

    WindowController(RecentWindow window, ConfigStore store) {
        this.window = window;
        this.store = store;
        this.clock = Clock.systemUTC();
    }

    /**
     * A source's series.
     *
     * @param span how far back, at most the window's span
     * @param metric which metrics; all kept ones when absent
     */
    record SourceSeries(String source, Instant from, Instant to, Duration windowSpan, List<Series> series) {
    }

    @GetMapping("/api/v1/sources/{name}/window")
    @Operation(summary = "Recent series of a source",
            description = "The numeric series the recent window keeps for this source (docs/console.md lists the"
                    + " metrics and columns), points from now - span on, counters as rates per second. A blocking"
                    + " query when index is given: it answers when the source's next measurement is recorded.")
    @ApiResponse(responseCode = "200", description = "The series",
            headers = @Header(name = INDEX_HEADER, description = "how many measurements of this source the window recorded"))
    @ApiResponse(responseCode = "400", description = "span, metric, index or wait is invalid",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<SourceSeries> series(@PathVariable String name,
            @Parameter(description = "how far back, e.g. 15m or 1h; at most the window's span (pgharvest.window.span),"
                    + " which is the default") @RequestParam(required = false) String span,
            @Parameter(description = "a metric to return (repeatable); every kept metric when absent")
            @RequestParam(required = false) List<String> metric,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        var problems = new ArrayList<FieldProblem>();
        Duration windowSpan = Duration.ofMillis(window.limits().spanMillis());
        Duration shown = windowSpan;
        if (span != null) {
            if (!BlockingQuery.isDuration(span)) {
                problems.add(new FieldProblem("span", "must be a duration such as 15m, 1h or 90s"));
            } else {
                shown = BlockingQuery.parseDuration(span);
                if (shown.isZero() || shown.compareTo(windowSpan) > 0) {
                    problems.add(new FieldProblem("span", "must be above 0 and at most the window's span, " + windowSpan));
                }
            }
        }
        Set<String> metrics = new LinkedHashSet<>(metric == null ? List.of() : metric);
        Set<String> unknown = new TreeSet<>(metrics);
        unknown.removeAll(ChartedColumns.metrics());
        if (!unknown.isEmpty()) {
            problems.add(new FieldProblem("metric", "the window keeps no " + unknown + "; it keeps "
                    + new TreeSet<>(ChartedColumns.metrics())));
        }
        BlockingQuery query = null;
        try {
            query = BlockingQuery.parse(index, wait);
        } catch (InvalidParameterException e) {
            problems.addAll(e.problems());
        }
        if (!problems.isEmpty()) {
            throw new InvalidParameterException(problems);
        }
        if (window.source(name).isEmpty() && !store.snapshot().sources().containsKey(name)) {
            throw new NoSuchItemException(StoreTable.SOURCES, name);
        }
        long seen = query.await(window.changesOf(name));
        Instant to = clock.instant();
        Instant from = to.minus(shown);
        var body = new SourceSeries(name, from, to, windowSpan, window.read(name, from.toEpochMilli(), metrics));
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(seen)).body(body);
    }

    @GetMapping("/api/v1/window")
    @Operation(summary = "Key numbers of every source",
            description = "Each source's latest transactions per second, connections, database size and replication"
                    + " lag from the recent window, by name. A blocking query when index is given: it answers when"
                    + " any source's next measurement is recorded.")
    @ApiResponse(responseCode = "200", description = "The key numbers",
            headers = @Header(name = INDEX_HEADER, description = "how many batches the window recorded"))
    @ApiResponse(responseCode = "400", description = "index or wait does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<List<KeyNumbers>> keyNumbers(
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        long seen = BlockingQuery.parse(index, wait).await(window.changes());
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(seen)).body(window.keyNumbers());
    }
}
