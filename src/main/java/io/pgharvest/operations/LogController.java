package io.pgharvest.operations;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.BlockingQuery;
import io.pgharvest.api.InvalidParameterException;
import io.pgharvest.model.FieldProblem;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** The collector's own recent log lines ({@link LogRing}), for the console's live log view. */
@RestController
@Tag(name = "Operations", description = "The collector's own log and its sinks")
class LogController {

    private static final List<String> LEVELS = List.of("ERROR", "WARN", "INFO", "DEBUG", "TRACE");
    private static final int MAX_LINES = 500;
    private static final String LEVEL_PARAM = "the least severe level shown: ERROR, WARN, INFO (default), DEBUG or TRACE";
    private static final String SEARCH_PARAM = "shows only lines whose message or logger contains this text, ignoring case";

    private final LogRing ring;

    LogController(LogRing ring) {
        this.ring = ring;
    }

    @GetMapping("/api/v1/logs")
    @Operation(summary = "Recent log lines of this collector",
            description = "At most limit (default and at most 500) lines newer than index (the sequence of the last line seen), oldest first;"
                    + " passwords, tokens and connection-string secrets are masked. A blocking query when index is"
                    + " given: it answers when a newer line is logged.")
    @ApiResponse(responseCode = "200", description = "The lines",
            headers = @Header(name = INDEX_HEADER, description = "sequence of the newest line logged"))
    @ApiResponse(responseCode = "400", description = "index, wait, level or limit does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<List<LogLine>> logs(
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait,
            @Parameter(description = LEVEL_PARAM) @RequestParam(defaultValue = "INFO") String level,
            @Parameter(description = SEARCH_PARAM) @RequestParam(required = false) String search,
            @Parameter(description = "the most lines in the answer, the newest ones: 1 to 500 (default)")
            @RequestParam(required = false) String limit) {
        var problems = new ArrayList<FieldProblem>();
        var filter = LineFilter.parse(level, search, problems);
        int most = parseLimit(limit, problems);
        rejectIfAny(problems);
        return newest(index, wait, most, seen -> ring.after(seen, ring.maxLines()),
                line -> filter.keeps(line.level(), line.logger(), line.message()));
    }

    @GetMapping("/api/v1/logs/causes")
    @Operation(summary = "This collector's log, one entry per cause",
            description = "Lines that say the same thing (the message with its source's name and numbers taken"
                    + " out, same level and logger) as one cause with its count, the newest message and how many"
                    + " sources it concerns; causes with a line newer than index, the one logged longest ago first."
                    + " Passwords, tokens and connection-string secrets are masked. A blocking query when index is"
                    + " given: it answers when a newer line is logged.")
    @ApiResponse(responseCode = "200", description = "The causes",
            headers = @Header(name = INDEX_HEADER, description = "sequence of the newest line logged"))
    @ApiResponse(responseCode = "400", description = "index, wait or level does not parse",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<List<LogCause>> causes(
            @Parameter(description = ApiDocs.INDEX_PARAM) @RequestParam(required = false) String index,
            @Parameter(description = ApiDocs.WAIT_PARAM) @RequestParam(required = false) String wait,
            @Parameter(description = LEVEL_PARAM) @RequestParam(defaultValue = "INFO") String level,
            @Parameter(description = SEARCH_PARAM) @RequestParam(required = false) String search) {
        var problems = new ArrayList<FieldProblem>();
        var filter = LineFilter.parse(level, search, problems);
        rejectIfAny(problems);
        return newest(index, wait, MAX_LINES, ring::causesAfter,
                cause -> filter.keeps(cause.level(), cause.logger(), cause.message()));
    }

    /**
     * What both views share once their filter parsed: the blocking wait on the ring, then the
     * items newer than the index the client has seen that the filter keeps, at most {@code most}
     * of the newest.
     */
    private <T> ResponseEntity<List<T>> newest(String index, String wait, int most, LongFunction<List<T>> after,
            Predicate<T> kept) {
        BlockingQuery query = BlockingQuery.parse(index, wait);
        return query.answer(ring.changes(), () -> {
            List<T> shown = after.apply(query.seenOrZero()).stream().filter(kept).toList();
            return shown.subList(Math.max(0, shown.size() - most), shown.size());
        });
    }

    private static void rejectIfAny(List<FieldProblem> problems) {
        if (!problems.isEmpty()) {
            throw new InvalidParameterException(problems);
        }
    }

    @GetMapping("/api/v1/logs/causes/{id}/sources")
    @Operation(summary = "The sources a log cause concerns",
            description = "Their names in the order they first appeared in the cause's lines (at most 10,000).")
    @ApiResponse(responseCode = "200", description = "The source names")
    @ApiResponse(responseCode = "404", description = "No such cause kept (at most 500 are)",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    List<String> causeSources(@PathVariable long id) {
        return ring.sourcesOf(id).orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND,
                "No log cause " + id + " is kept: the 500 most recently logged are"));
    }

    /** The level and search parameters both views share, parsed once. */
    private record LineFilter(Set<String> levels, String needle) {

        /** The filter, or one that keeps nothing after adding the {@code level} problem to {@code problems}. */
        static LineFilter parse(String level, String search, List<FieldProblem> problems) {
            String minimum = level.strip().toUpperCase(Locale.ROOT);
            if (!LEVELS.contains(minimum)) {
                problems.add(new FieldProblem("level", "must be one of " + LEVELS));
                return new LineFilter(Set.of(), null);
            }
            return new LineFilter(Set.copyOf(LEVELS.subList(0, LEVELS.indexOf(minimum) + 1)),
                    search == null || search.isBlank() ? null : search.strip().toLowerCase(Locale.ROOT));
        }

        boolean keeps(String level, String logger, String message) {
            return levels.contains(level) && (needle == null || message.toLowerCase(Locale.ROOT).contains(needle)
                    || logger.toLowerCase(Locale.ROOT).contains(needle));
        }
    }

    /** The lines asked for ({@link #MAX_LINES} when absent); a {@code limit} problem when it is not 1 to that. */
    private static int parseLimit(String limit, List<FieldProblem> problems) {
        if (limit == null) {
            return MAX_LINES;
        }
        try {
            int most = Integer.parseInt(limit.strip());
            if (most >= 1 && most <= MAX_LINES) {
                return most;
            }
        } catch (NumberFormatException e) {
            // named below, as an out-of-range number is
        }
        problems.add(new FieldProblem("limit", "must be a whole number from 1 to " + MAX_LINES));
        return MAX_LINES;
    }
}
