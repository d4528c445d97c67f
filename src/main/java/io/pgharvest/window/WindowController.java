package io.pgharvest.window;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.BlockingQuery;
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
import java.util.Comparator;
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

    private static final int MAX_SAMPLES = 100;

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

    /**
     * A source's statements over a span, most execution time first.
     *
     * @param store which store answered: {@code window}, or {@code snapshot} while some of the sums
     *     come from points the window restored from its snapshot after a restart
     */
    record SourceStatements(String source, Instant from, Instant to, Duration windowSpan, List<Statement> statements,
            String store) {
    }

    /**
     * One statement over a span: its text, its query_stats series, the recent samples that ran it and
     * its latest plan per database (plans are read at most once per plan-every, so the span does not
     * filter them).
     */
    record StatementHistory(String source, String queryid, String text, Instant from, Instant to, Duration windowSpan,
            List<Series> series, List<Sample> samples, List<Plan> plans) {
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
        Set<String> metrics = new LinkedHashSet<>(metric == null ? List.of() : metric);
        var request = WindowRequest.parse(span, index, wait, windowSpan(), problems -> {
            Set<String> unknown = new TreeSet<>(metrics);
            unknown.removeAll(ChartedColumns.metrics());
            if (!unknown.isEmpty()) {
                problems.add(new FieldProblem("metric", "the window keeps no " + unknown + "; it keeps "
                        + new TreeSet<>(ChartedColumns.metrics())));
            }
        });
        var read = awaitSource(name, request);
        return read.answer(new SourceSeries(name, read.from(), read.to(), windowSpan(),
                window.read(name, read.fromMillis(), metrics)));
    }

    private Duration windowSpan() {
        return Duration.ofMillis(window.limits().spanMillis());
    }

    /**
     * What a source's endpoints share once their parameters parsed: 404 for an unknown source, the
     * blocking wait on the source's index, then the span's bounds taken after the wait so a woken
     * request reads up to now.
     */
    private SpanRead awaitSource(String name, WindowRequest request) {
        if (window.source(name).isEmpty() && !store.snapshot().sources().containsKey(name)) {
            throw new NoSuchItemException(StoreTable.SOURCES, name);
        }
        long seen = request.query().await(window.changesOf(name));
        Instant to = clock.instant();
        return new SpanRead(seen, to.minus(request.span()), to);
    }

    /** A source's span read after its blocking wait, answered with the index it waited for. */
    private record SpanRead(long seen, Instant from, Instant to) {

        long fromMillis() {
            return from.toEpochMilli();
        }

        <T> ResponseEntity<T> answer(T body) {
            return BlockingQuery.answered(seen, body);
        }
    }

    @GetMapping("/api/v1/sources/{name}/queries")
    @Operation(summary = "Top statements of a source",
            description = "Every statement of the recent window's query_stats summed over the span (calls, execution"
                    + " time, mean time, rows, shared blocks read) with its normalized text once query_texts has read"
                    + " it, most execution time first; dbname keeps one database's. A blocking query when index is"
                    + " given, on the same index as the source's window.")
    @ApiResponse(responseCode = "200", description = "The statements",
            headers = @Header(name = INDEX_HEADER, description = "how many measurements of this source the window recorded"))
    @ApiResponse(responseCode = "400", description = "span, index or wait is invalid",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<SourceStatements> statements(@PathVariable String name,
            @Parameter(description = "how far back, e.g. 15m; at most the window's span, which is the default")
            @RequestParam(required = false) String span,
            @Parameter(description = "only this database's statements") @RequestParam(required = false) String dbname,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        var request = WindowRequest.parse(span, index, wait, windowSpan(), problems -> { });
        var read = awaitSource(name, request);
        List<Statement> statements = window.source(name).map(w -> w.statements(read.fromMillis())).orElse(List.of())
                .stream().filter(s -> dbname == null || dbname.equals(s.dbname()))
                .sorted(Comparator.comparingDouble(Statement::totalExecTime).reversed()
                        .thenComparing(Statement::queryid)).toList();
        boolean restored = window.source(name).map(w -> w.restoredSince(read.fromMillis(), SourceWindow.QUERY_STATS))
                .orElse(false);
        return read.answer(new SourceStatements(name, read.from(), read.to(), windowSpan(), statements,
                restored ? Series.SNAPSHOT : Series.WINDOW));
    }

    @GetMapping("/api/v1/sources/{name}/queries/{queryid}")
    @Operation(summary = "One statement of a source",
            description = "Its text, its query_stats series over the span (deltas per collection interval), the"
                    + " newest session samples that ran it (at most 100, newest first) with their wait events and"
                    + " blocking sessions, and its latest generic plan per database (query_plans) with the hash it"
                    + " replaced and when, whatever the span. A blocking query when index is given.")
    @ApiResponse(responseCode = "200", description = "The statement",
            headers = @Header(name = INDEX_HEADER, description = "how many measurements of this source the window recorded"))
    @ApiResponse(responseCode = "400", description = "queryid, span, index or wait is invalid",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<StatementHistory> statement(@PathVariable String name, @PathVariable String queryid,
            @Parameter(description = "how far back, e.g. 15m; at most the window's span, which is the default")
            @RequestParam(required = false) String span,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        var request = WindowRequest.parse(span, index, wait, windowSpan(), problems -> {
            if (!isQueryId(queryid)) {
                problems.add(new FieldProblem("queryid", "must be a query id (a 64-bit integer) or other"));
            }
        });
        var read = awaitSource(name, request);
        List<Series> series = window.read(name, read.fromMillis(), Set.of(SourceWindow.QUERY_STATS)).stream()
                .filter(s -> queryid.equals(s.tags().get("queryid"))).toList();
        var source = window.source(name);
        return read.answer(new StatementHistory(name, queryid, source.map(w -> w.text(queryid)).orElse(null),
                read.from(), read.to(), windowSpan(), series,
                source.map(w -> w.samples(read.fromMillis(), queryid, MAX_SAMPLES)).orElse(List.of()),
                source.map(w -> w.plans(queryid)).orElse(List.of())));
    }

    private static boolean isQueryId(String queryid) {
        if (queryid.equals("other")) {
            return true;
        }
        try {
            Long.parseLong(queryid);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
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
        return BlockingQuery.parse(index, wait).answer(window.changes(), window::keyNumbers);
    }
}
