package io.pgharvest.logevents;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.InvalidParameterException;
import io.pgharvest.logevents.LogEventBook.LogEventView;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.StoreTable;
import io.pgharvest.serverlog.event.LogCategory;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.NoSuchItemException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** A source's latest log events (docs/log-insights.md), for the console's Log tab and scripts. */
@RestController
@Tag(name = "Log events", description = "Events read from each source's server log by the log_* metrics")
class LogEventsController {

    static final int DEFAULT_LIMIT = 200;
    private static final Set<String> SEVERITIES = Set.of("LOG", "ERROR", "FATAL", "PANIC");

    private final LogEventBook book;
    private final ConfigStore store;

    LogEventsController(LogEventBook book, ConfigStore store) {
        this.book = book;
        this.store = store;
    }

    /** The answer: the events newest first, and how many this pgharvest keeps per source. */
    record LogEvents(String source, int keptPerSource, List<LogEventView> events) {
    }

    @GetMapping("/api/v1/sources/{name}/log-events")
    @Operation(summary = "Latest log events of a source",
            description = "The rows of the source's log_* metrics as this pgharvest last received them, newest first:"
                    + " at most " + LogEventBook.MAX_EVENTS + " events (and 2 M characters of text) per source are"
                    + " kept in memory; older ones are in the sinks. Texts are redacted as the metrics deliver them.")
    @ApiResponse(responseCode = "200", description = "The events")
    @ApiResponse(responseCode = "400", description = "category, severity, queryid or limit is invalid",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "404", description = "No such source",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    LogEvents events(@PathVariable String name,
            @Parameter(description = "only this category: autovacuum, checkpoints, lock_waits, deadlocks, temp_files,"
                    + " errors, connection_failures, slow_statements, plans, server_events") @RequestParam(required = false) String category,
            @Parameter(description = "only events of this table (schema.table)") @RequestParam(required = false) String table,
            @Parameter(description = "only events of this query ID (a deadlock also when it was the other side)") @RequestParam(required = false) String queryid,
            @Parameter(description = "only entries of this severity: LOG, ERROR, FATAL, PANIC")
            @RequestParam(required = false) String severity,
            @Parameter(description = "at most this many events, 1 to " + LogEventBook.MAX_EVENTS + ", default "
                    + DEFAULT_LIMIT) @RequestParam(required = false) String limit) {
        var problems = new ArrayList<FieldProblem>();
        Predicate<LogEventView> filter = event -> true;
        if (category != null) {
            LogCategory wanted = category(category);
            if (wanted == null) {
                problems.add(new FieldProblem("category", "must be one of " + Arrays.stream(LogCategory.values())
                        .map(c -> c.name().toLowerCase(Locale.ROOT)).toList()));
            } else {
                filter = filter.and(event -> event.metric().equals(wanted.metric()));
            }
        }
        if (table != null) {
            filter = filter.and(event -> table.equals(event.tags().get("table")));
        }
        if (queryid != null) {
            try {
                String id = Long.toString(Long.parseLong(queryid));
                filter = filter.and(event -> id.equals(event.values().get("queryid")) || otherSide(event, id));
            } catch (NumberFormatException e) {
                problems.add(new FieldProblem("queryid", "must be a query ID (a 64-bit integer)"));
            }
        }
        if (severity != null) {
            String upper = severity.toUpperCase(Locale.ROOT);
            if (!SEVERITIES.contains(upper)) {
                problems.add(new FieldProblem("severity", "must be one of LOG, ERROR, FATAL, PANIC"));
            } else {
                filter = filter.and(event -> upper.equals(severityOf(event)));
            }
        }
        int max = DEFAULT_LIMIT;
        if (limit != null) {
            try {
                max = Integer.parseInt(limit);
            } catch (NumberFormatException e) {
                max = -1;
            }
            if (max < 1 || max > LogEventBook.MAX_EVENTS) {
                problems.add(new FieldProblem("limit", "must be an integer from 1 to " + LogEventBook.MAX_EVENTS));
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidParameterException(problems);
        }
        if (!store.snapshot().sources().containsKey(name)) {
            throw new NoSuchItemException(StoreTable.SOURCES, name);
        }
        return new LogEvents(name, LogEventBook.MAX_EVENTS, book.read(name, filter, max));
    }

    private static LogCategory category(String name) {
        for (LogCategory category : LogCategory.values()) {
            if (category.name().equalsIgnoreCase(name) || category.metric().equals(name)) {
                return category;
            }
        }
        return null;
    }

    /** Whether {@code event} is a deadlock whose other processes ran query {@code id}. */
    private static boolean otherSide(LogEventView event, String id) {
        return event.values().get("other_queryids") instanceof String others
                && Arrays.asList(others.split(",")).contains(id);
    }

    /** Errors say their severity; every other event is a LOG entry. */
    private static String severityOf(LogEventView event) {
        return event.values().get("severity") instanceof String text ? text : "LOG";
    }
}
