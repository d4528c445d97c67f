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
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;
import org.springdoc.core.annotations.ParameterObject;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The database views over the API: a source's sessions and lock tree, tables and vacuum, indexes,
 * wraparound and replication, each from the latest reads of the metrics that feed it, with the state of
 * each of those metrics ({@link ReadState}), so "nothing there" and "not collected" never look alike.
 * Each is a blocking query on the source's reads: it answers when the source's next read arrives.
 */
@RestController
@Tag(name = "Database views", description = "A source's sessions, locks, tables, indexes, wraparound and replication"
        + " from the latest reads the recent window keeps")
class ViewsController {

    private final RecentWindow window;
    private final ConfigStore store;
    private final Clock clock;

    ViewsController(RecentWindow window, ConfigStore store) {
        this.window = window;
        this.store = store;
        this.clock = Clock.systemUTC();
    }

    /**
     * Every view's answer starts so: the source, when it was read, the state of each metric the view
     * reads. A paged view's {@code total} is how many rows its page is of (here sessions: the lock tree
     * is always whole).
     */
    record Sessions(String source, Instant at, List<ReadState> reads, int total, List<SessionsView.Session> sessions,
            List<SessionsView.LockNode> lockTree) {
    }

    record Locks(String source, Instant at, List<ReadState> reads, List<SessionsView.LockNode> lockTree) {
    }

    record Tables(String source, Instant at, List<ReadState> reads, int total, List<TablesView.Table> tables) {
    }

    record Indexes(String source, Instant at, List<ReadState> reads, int total, List<IndexesView.Index> indexes) {
    }

    record Wraparound(String source, Instant at, List<ReadState> reads, List<ServerViews.DatabaseAge> databases) {
    }

    record Replication(String source, Instant at, List<ReadState> reads, List<ServerViews.Standby> standbys,
            List<ServerViews.Slot> slots) {
    }

    record Reads(String source, Instant at, Collection<ReadState> reads) {
    }

    /** The documentation every view endpoint shares: its answers and its blocking form. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @ApiResponse(responseCode = "200", description = "The view",
            headers = @Header(name = INDEX_HEADER, description = "how many reads of this source the window recorded"))
    @ApiResponse(responseCode = "400", description = "index, wait or a paging parameter is invalid (each named)",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @interface ViewResponses {
    }


    @GetMapping("/api/v1/sources/{name}/sessions")
    @Operation(summary = "Sessions and lock tree of a source", description = "The sessions of the latest query_samples"
            + " read (every session that is not idle: pid, role, application, state, wait event, statement and"
            + " transaction age, query id with its normalized text when read, who blocks it) and the lock tree: each"
            + " session holding a lock others wait for, with the sessions it blocks beneath it (texts from"
            + " blocking_locks).")
    @ViewResponses
    ResponseEntity<Sessions> sessions(@PathVariable String name,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait,
            @ParameterObject ViewPage.Parameters paging) {
        var problems = new ArrayList<FieldProblem>();
        var page = ViewPage.parse(paging, SessionsView.Session.class, problems);
        return answer(name, index, wait, problems, read -> {
            var sessions = sessionsOf(name, read);
            return new Sessions(name, read.now(), read.statesOf(SessionsView.SAMPLES, SessionsView.BLOCKING),
                    sessions.size(), page.of(sessions, SessionsView.Session.class),
                    SessionsView.lockTree(sessions, read.states().rows(SessionsView.BLOCKING)));
        });
    }

    @GetMapping("/api/v1/sources/{name}/locks")
    @Operation(summary = "Lock tree of a source", description = "Who blocks whom at the latest query_samples read: each"
            + " root holder (holding a lock, waiting for none) with its application, state, transaction age and"
            + " statement, and the sessions waiting for it beneath it with how long they waited.")
    @ViewResponses
    ResponseEntity<Locks> locks(@PathVariable String name,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        return answer(name, index, wait, read -> new Locks(name, read.now(),
                read.statesOf(SessionsView.SAMPLES, SessionsView.BLOCKING),
                SessionsView.lockTree(sessionsOf(name, read), read.states().rows(SessionsView.BLOCKING))));
    }

    private List<SessionsView.Session> sessionsOf(String name, ViewRead read) {
        var source = window.source(name);
        return SessionsView.sessions(read.states().rows(SessionsView.SAMPLES),
                queryid -> source.map(w -> w.text(queryid)).orElse(null));
    }

    @GetMapping("/api/v1/sources/{name}/tables")
    @Operation(summary = "Tables and vacuum of a source", description = "Per table (the 300 largest of table_stats and"
            + " the 50 with the most dead tuples of table_maintenance): size, live and dead tuples and their share, the"
            + " age of the last (auto)vacuum and (auto)analyze with their counts, the freeze age against the table's"
            + " autovacuum_freeze_max_age, whether vacuum or analyze is due and why.")
    @ViewResponses
    ResponseEntity<Tables> tables(@PathVariable String name,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait,
            @ParameterObject ViewPage.Parameters paging) {
        var problems = new ArrayList<FieldProblem>();
        var page = ViewPage.parse(paging, TablesView.Table.class, problems);
        return answer(name, index, wait, problems, read -> {
            var tables = TablesView.tables(read.states().rows(TablesView.STATS), read.states().rows(TablesView.MAINTENANCE));
            return new Tables(name, read.now(), read.statesOf(TablesView.STATS, TablesView.MAINTENANCE), tables.size(),
                    page.of(tables, TablesView.Table.class));
        });
    }

    @GetMapping("/api/v1/sources/{name}/indexes")
    @Operation(summary = "Indexes of a source", description = "Per index (index_stats, unused_indexes, invalid_indexes,"
            + " duplicate_indexes): size, scans, the age of the last scan, whether it is unused (with the age of the"
            + " statistics that say so), invalid or a duplicate of another.")
    @ViewResponses
    ResponseEntity<Indexes> indexes(@PathVariable String name,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait,
            @ParameterObject ViewPage.Parameters paging) {
        var problems = new ArrayList<FieldProblem>();
        var page = ViewPage.parse(paging, IndexesView.Index.class, problems);
        return answer(name, index, wait, problems, read -> {
            var indexes = IndexesView.indexes(read.states().rows(IndexesView.STATS), read.states().rows(IndexesView.UNUSED),
                    read.states().rows(IndexesView.INVALID), read.states().rows(IndexesView.DUPLICATE));
            return new Indexes(name, read.now(),
                    read.statesOf(IndexesView.STATS, IndexesView.UNUSED, IndexesView.INVALID, IndexesView.DUPLICATE),
                    indexes.size(), page.of(indexes, IndexesView.Index.class));
        });
    }

    @GetMapping("/api/v1/sources/{name}/wraparound")
    @Operation(summary = "Transaction ID wraparound of a source", description = "Per database of the server"
            + " (xid_wraparound): transaction ID and multixact ages and their share of autovacuum's freeze limit and"
            + " of the hard limit of 2^31.")
    @ViewResponses
    ResponseEntity<Wraparound> wraparound(@PathVariable String name,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        return answer(name, index, wait, read -> new Wraparound(name, read.now(), read.statesOf(ServerViews.WRAPAROUND),
                ServerViews.ages(read.states().rows(ServerViews.WRAPAROUND))));
    }

    @GetMapping("/api/v1/sources/{name}/replication")
    @Operation(summary = "Replication of a source", description = "The server's standbys (replication) with their lag in"
            + " bytes and seconds, and its replication slots (replication_slots) with the WAL they retain and whether"
            + " they are active. A collected read with no standby says so in its state: rows 0.")
    @ViewResponses
    ResponseEntity<Replication> replication(@PathVariable String name,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        return answer(name, index, wait, read -> new Replication(name, read.now(),
                read.statesOf(ServerViews.REPLICATION, ServerViews.SLOTS),
                ServerViews.standbys(read.states().rows(ServerViews.REPLICATION)),
                ServerViews.slots(read.states().rows(ServerViews.SLOTS))));
    }

    @GetMapping("/api/v1/sources/{name}/reads")
    @Operation(summary = "What a source collects and when it was last read", description = "Every metric the source"
            + " selects or was read for it: not-collected, waiting (selected, no read yet) or collected with the time"
            + " and row count of its latest read, stale when that is older than two of its intervals and 10 s.")
    @ViewResponses
    ResponseEntity<Reads> reads(@PathVariable String name,
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait) {
        return answer(name, index, wait, read -> new Reads(name, read.now(), read.states().all().values()));
    }

    /** A source's states after the blocking wait, taken at {@code now}. */
    private record ViewRead(ReadStates states, Instant now) {

        List<ReadState> statesOf(String... metrics) {
            return Arrays.stream(metrics).map(states::of).toList();
        }
    }

    private <T> ResponseEntity<T> answer(String name, String index, String wait, Function<ViewRead, T> view) {
        return answer(name, index, wait, List.of(), view);
    }

    /**
     * 400 naming every bad parameter ({@code problems}, the view's own, with the blocking query's), 404
     * for an unknown source, the blocking wait on its reads, then the view read after the wait.
     */
    private <T> ResponseEntity<T> answer(String name, String index, String wait, List<FieldProblem> problems,
            Function<ViewRead, T> view) {
        var all = new ArrayList<>(problems);
        BlockingQuery query = null;
        try {
            query = BlockingQuery.parse(index, wait);
        } catch (InvalidParameterException e) {
            all.addAll(e.problems());
        }
        if (!all.isEmpty()) {
            throw new InvalidParameterException(all);
        }
        var config = store.snapshot();
        if (!config.sources().containsKey(name) && window.reads().find(name).isEmpty()) {
            throw new NoSuchItemException(StoreTable.SOURCES, name);
        }
        long seen = query.await(window.reads().readsOf(name).changes());
        Instant now = clock.instant();
        var states = new ReadStates(store.snapshot(), name, window.reads().find(name), now);
        return BlockingQuery.answered(seen, view.apply(new ViewRead(states, now)));
    }
}
