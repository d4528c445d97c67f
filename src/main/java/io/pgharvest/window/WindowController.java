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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.ObjectProvider;
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
    private final RangeSource ranges;
    private final FleetNumbers fleet;
    private final Clock clock;

    WindowController(RecentWindow window, ConfigStore store, ObjectProvider<StoredHistory> history) {
        this.window = window;
        this.store = store;
        this.clock = Clock.systemUTC();
        this.ranges = new RangeSource(window, history.getIfAvailable(), clock);
        this.fleet = new FleetNumbers(window, history.getIfAvailable(), clock);
    }

    /**
     * A source's series.
     *
     * @param span how far back, at most the window's span
     * @param metric which metrics; all kept ones when absent
     */
    record SourceSeries(String source, Instant from, Instant to, Duration windowSpan,
            @Schema(description = "which store answered: window, postgres, prometheus or snapshot") String store,
            @Schema(description = "the bucket width the store aggregated to; null: points as collected") Duration step,
            @Schema(description = "null, or why the store answered nothing or part (slow, down)") String error,
            List<Series> series) {
    }

    /** A source's statements over a span, most execution time first. */
    record SourceStatements(String source, Instant from, Instant to, Duration windowSpan, String store, String error,
            List<Statement> statements) {
    }

    /**
     * One statement over a span: its text, its query_stats series, the recent samples that ran it and
     * its latest plan per database (plans are read at most once per plan-every, so the span does not
     * filter them).
     */
    record StatementHistory(String source, String queryid, String text, Instant from, Instant to, Duration windowSpan,
            String store, Duration step, String error, List<Series> series, List<Sample> samples, List<Plan> plans,
            List<WaitShare> waits) {
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
            @Parameter(description = SPAN) @RequestParam(required = false) String span,
            @Parameter(description = FROM) @RequestParam(required = false) String from,
            @Parameter(description = TO) @RequestParam(required = false) String to,
            @Parameter(description = STEP) @RequestParam(required = false) String step,
            @Parameter(description = "a metric to return (repeatable); every kept metric when absent (from a store:"
                    + " every kept metric but query_stats, which the statement endpoints read)")
            @RequestParam(required = false) List<String> metric,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        Set<String> metrics = new LinkedHashSet<>(metric == null ? List.of() : metric);
        var request = parse(span, from, to, step, index, wait, problems -> {
            Set<String> unknown = new TreeSet<>(metrics);
            unknown.removeAll(ChartedColumns.metrics());
            if (!unknown.isEmpty()) {
                problems.add(new FieldProblem("metric", "the window keeps no " + unknown + "; it keeps "
                        + new TreeSet<>(ChartedColumns.metrics())));
            }
        });
        var read = awaitSource(name, request);
        if (request.range() != null) {
            return read.answer(ranges.series(name, request.range(), metrics, windowSpan()));
        }
        List<Series> series = window.read(name, read.fromMillis(), metrics);
        return read.answer(new SourceSeries(name, read.from(), read.to(), windowSpan(), Series.storeOf(series), null,
                null, series));
    }

    private static final String SPAN = "how far back, e.g. 15m or 1h; at most the window's span (pgharvest.window.span),"
            + " which is the default. With from or to: the range's length on that side (e.g. 7d)";
    private static final String FROM = "the range's start, RFC 3339 (e.g. 2026-12-01T03:00:00Z); within the recent"
            + " window read from memory, before it from the store that holds the source's history";
    private static final String TO = "the range's end, RFC 3339; now when absent";
    private static final String STEP = "a store's bucket width, e.g. 5m; at least the range / 600 (the default is the"
            + " smallest round width within 600 points)";

    /** The parameters, every problem named in one 400. */
    private WindowRequest parse(String span, String from, String to, String step, String index, String wait,
            java.util.function.Consumer<List<FieldProblem>> moreChecks) {
        var request = WindowRequest.parse(new WindowRequest.RangeParameters(span, from, to, step), index, wait,
                windowSpan(), clock.instant(), moreChecks);
        return request;
    }

    /** {@code snapshot} while the source's query_stats sums from {@code from} include restored points, else {@code window}. */
    private String windowStore(String name, long from) {
        return window.source(name).map(w -> w.restoredSince(from, SourceWindow.QUERY_STATS)).orElse(false)
                ? Series.SNAPSHOT : Series.WINDOW;
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
        if (request.range() != null) {
            ranges.check(name, request.range());
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
            @Parameter(description = SPAN) @RequestParam(required = false) String span,
            @Parameter(description = FROM) @RequestParam(required = false) String from,
            @Parameter(description = TO) @RequestParam(required = false) String to,
            @Parameter(description = "only this database's statements") @RequestParam(required = false) String dbname,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        var request = parse(span, from, to, null, index, wait, problems -> { });
        var read = awaitSource(name, request);
        if (request.range() != null) {
            return read.answer(ranges.statements(name, request.range(), dbname, windowSpan()));
        }
        List<Statement> statements = window.source(name).map(w -> w.statements(read.fromMillis(), read.to().toEpochMilli()))
                .orElse(List.of())
                .stream().filter(s -> dbname == null || dbname.equals(s.dbname()))
                // a statement seen before the span but not in it has only zeros here: not one of the span's,
                // unless it runs now (a statement running for the first time has no calls yet)
                .filter(s -> s.calls() > 0 || s.totalExecTime() > 0 || s.runningSessions() > 0)
                .sorted(Statement.MOST_TIME_FIRST).toList();
        return read.answer(new SourceStatements(name, read.from(), read.to(), windowSpan(),
                windowStore(name, read.fromMillis()), null, statements));
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
            @Parameter(description = SPAN) @RequestParam(required = false) String span,
            @Parameter(description = FROM) @RequestParam(required = false) String from,
            @Parameter(description = TO) @RequestParam(required = false) String to,
            @Parameter(description = STEP) @RequestParam(required = false) String step,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        var request = parse(span, from, to, step, index, wait, problems -> {
            if (!isQueryId(queryid)) {
                problems.add(new FieldProblem("queryid", "must be a query id (a 64-bit integer) or other"));
            }
        });
        var read = awaitSource(name, request);
        if (request.range() != null) {
            return read.answer(ranges.statement(name, queryid, request.range(), windowSpan()));
        }
        return read.answer(ranges.statementFromWindow(name, queryid, read.from(), read.to(), windowSpan()));
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
            description = "Each source's transactions per second, connections (mean and peak), database size and"
                    + " replication lag, by name: without span, from and to the latest reads of the recent window;"
                    + " over a range (docs/history.md says what each number means over one) from memory for a"
                    + " source the window holds since the range's start, else one read per history store for the"
                    + " whole fleet, each entry naming its store (or its error). A blocking query when index is given: it answers"
                    + " when any source's next measurement is recorded.")
    @ApiResponse(responseCode = "200", description = "The key numbers",
            headers = @Header(name = INDEX_HEADER, description = "how many batches the window recorded"))
    @ApiResponse(responseCode = "400", description = "span, from, to, index or wait is invalid",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<List<KeyNumbers>> keyNumbers(
            @Parameter(description = SPAN) @RequestParam(required = false) String span,
            @Parameter(description = FROM) @RequestParam(required = false) String from,
            @Parameter(description = TO) @RequestParam(required = false) String to,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        var request = parse(span, from, to, null, index, wait, problems -> {
        });
        if (span == null && request.range() == null) {
            return request.query().answer(window.changes(), window::keyNumbers);
        }
        return request.query().answer(window.changes(), () -> {
            TimeRange range = request.range() != null ? request.range()
                    : TimeRange.of(clock.instant().minus(request.span()), clock.instant());
            return fleet.over(range, fleetNames());
        });
    }

    /** Every configured source and every source the window holds points of, by name. */
    private Set<String> fleetNames() {
        Set<String> names = new TreeSet<>(store.snapshot().sources().keySet());
        window.keyNumbers().forEach(numbers -> names.add(numbers.source()));
        return names;
    }
}
