package io.pgharvest.pgwatch;

import static io.pgharvest.api.BlockingQuery.INDEX_HEADER;

import io.pgharvest.api.ApiDocs;
import io.pgharvest.api.ProblemTypes;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.pgwatch.format.ConfigFileException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Imports pgwatch's sources.yaml and metrics.yaml at runtime; docs/pgwatch-import.md. */
@RestController
@RequestMapping("/api/v1/import")
@Tag(name = "Import", description = "pgwatch configuration import")
class ImportController {

    /** Far above any real configuration; keeps a mistaken upload from filling the heap. */

    private final PgwatchImporter importer;

    ImportController(PgwatchImporter importer) {
        this.importer = importer;
    }

    @PostMapping
    @Operation(summary = "Import pgwatch YAML",
            description = "The body is pgwatch's sources.yaml (a list), metrics.yaml (metrics and presets), a map with"
                    + " any of sources, metrics and presets, or several such YAML documents separated by ---."
                    + " Sources, metrics and presets are created or replaced all together; an invalid item rejects"
                    + " the whole import. $VAR and ${VAR} are refused: the environment is read only by start-up imports.")
    @ApiResponse(responseCode = "200", description = "Imported, or what would change (dryRun)",
            headers = @Header(name = INDEX_HEADER, description = "store index after the import"))
    @ApiResponse(responseCode = "400", description = "YAML does not parse, or items are invalid (errors names each"
            + " field in pgwatch's spelling); nothing was changed",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    @ApiResponse(responseCode = "413", description = "Body larger than 16 MiB",
            content = @Content(mediaType = ApiDocs.PROBLEM_JSON, schema = @Schema(implementation = ApiDocs.Problem.class)))
    ResponseEntity<?> importYaml(
            @RequestBody byte[] body,
            @Parameter(description = "report what would change without changing anything")
            @RequestParam(defaultValue = "false") boolean dryRun,
            @Parameter(description = "leave metrics and presets named like built-in ones out of the import")
            @RequestParam(defaultValue = "false") boolean keepBuiltIns) {
        // Bodies over 16 MiB are refused while they are read (api.RequestLimitsFilter): 413.
        ImportReport report = importer.importYaml(body, dryRun, keepBuiltIns);
        return ResponseEntity.ok().header(INDEX_HEADER, Long.toString(report.index())).body(report);
    }

    @ExceptionHandler(ImportRejectedException.class)
    ResponseEntity<ProblemDetail> rejected(ImportRejectedException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                "The import is invalid and nothing was changed; see errors.");
        problem.setType(ProblemTypes.INVALID);
        problem.setProperty("errors", e.problems());
        problem.setProperty("notices", e.notices());
        return ResponseEntity.badRequest().body(problem);
    }

    /** The parser's message is scrubbed of passwords by ConfigFileException and quotes no input line. */
    @ExceptionHandler(ConfigFileException.class)
    ResponseEntity<ProblemDetail> unreadable(ConfigFileException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                "The body is not pgwatch YAML that pgharvest can read; see errors. Nothing was changed.");
        problem.setType(ProblemTypes.MALFORMED);
        String where = e.line() > 0 ? "line " + e.line() + (e.column() > 0 ? ", column " + e.column() : "") + ": " : "";
        problem.setProperty("errors", List.of(new FieldProblem("body", where + e.problem())));
        return ResponseEntity.badRequest().body(problem);
    }
}
