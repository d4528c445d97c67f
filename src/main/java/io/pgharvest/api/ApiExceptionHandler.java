package io.pgharvest.api;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.InvalidConfigException;
import io.pgharvest.store.NoSuchItemException;
import io.pgharvest.store.WriteCondition.StaleIndexException;
import io.pgharvest.store.StoreException;
import io.pgharvest.store.StoreUnavailableException;
import io.pgharvest.store.state.BuiltInItemException;
import io.pgharvest.store.state.DuplicateItemException;
import io.pgharvest.store.state.ItemInUseException;
import io.pgharvest.support.JacksonPaths;
import java.net.URI;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * Answers every error of the API and the actuator with RFC 9457 problem details: a {@code type}
 * under {@code https://pgharvest.io/problems/}, and for bad input an {@code errors} array of
 * {@code {field, message}}. Details never echo submitted values, which may hold secrets.
 */
@RestControllerAdvice
class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    private static final java.util.regex.Pattern DUPLICATE_KEY =
            java.util.regex.Pattern.compile("Duplicate Object property \"([^\"]*)\"");

    @ExceptionHandler(InvalidConfigException.class)
    ResponseEntity<ProblemDetail> invalid(InvalidConfigException e) {
        return problem(HttpStatus.BAD_REQUEST, ProblemTypes.INVALID,
                "The " + noun(e.table()) + " is invalid; see errors.", e.problems());
    }

    @ExceptionHandler(InvalidParameterException.class)
    ResponseEntity<ProblemDetail> badParameter(InvalidParameterException e) {
        return problem(HttpStatus.BAD_REQUEST, ProblemTypes.BAD_PARAMETER,
                "A query parameter is invalid; see errors.", e.problems());
    }

    @ExceptionHandler(NoSuchItemException.class)
    ResponseEntity<ProblemDetail> notFound(NoSuchItemException e) {
        return problem(HttpStatus.NOT_FOUND, ProblemTypes.NOT_FOUND, e.getMessage(), null);
    }

    @ExceptionHandler(DuplicateItemException.class)
    ResponseEntity<ProblemDetail> duplicate(DuplicateItemException e) {
        return problem(HttpStatus.CONFLICT, ProblemTypes.DUPLICATE, e.getMessage(), null);
    }

    @ExceptionHandler(BuiltInItemException.class)
    ResponseEntity<ProblemDetail> builtIn(BuiltInItemException e) {
        return problem(HttpStatus.CONFLICT, ProblemTypes.BUILT_IN, e.getMessage(), null);
    }

    /** Names the item's current modify index, so the writer can re-read it and retry. */
    @ExceptionHandler(StaleIndexException.class)
    ResponseEntity<ProblemDetail> stale(StaleIndexException e) {
        ResponseEntity<ProblemDetail> response = problem(HttpStatus.CONFLICT, ProblemTypes.STALE_INDEX, e.getMessage(), null);
        response.getBody().setProperty("modifyIndex", e.current());
        response.getBody().setProperty("expectedModifyIndex", e.expected());
        return response;
    }

    /** Lists the users as {@code usedBy: {"sources": [...], "presets": [...]}}. */
    @ExceptionHandler(ItemInUseException.class)
    ResponseEntity<ProblemDetail> inUse(ItemInUseException e) {
        ResponseEntity<ProblemDetail> response = problem(HttpStatus.CONFLICT, ProblemTypes.IN_USE, e.getMessage(), null);
        var usedBy = new LinkedHashMap<String, List<String>>();
        e.users().forEach((table, names) -> usedBy.put(table.name().toLowerCase(Locale.ROOT), names));
        response.getBody().setProperty("usedBy", usedBy);
        return response;
    }

    /** The message names the configuration database by its masked URL only. */
    @ExceptionHandler(StoreUnavailableException.class)
    ResponseEntity<ProblemDetail> storeUnavailable(StoreUnavailableException e) {
        return problem(HttpStatus.SERVICE_UNAVAILABLE, ProblemTypes.STORE_UNAVAILABLE, e.getMessage(), null);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        log.error("Request failed", e);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, ProblemTypes.INTERNAL,
                "The request failed on the server; nothing was changed. The server log has the details.", null);
    }

    @Override
    protected ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException e,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        List<FieldProblem> problems = e.getBindingResult().getFieldErrors().stream()
                .map(error -> new FieldProblem(error.getField(), String.valueOf(error.getDefaultMessage())))
                .toList();
        ProblemDetail body = detail(HttpStatus.BAD_REQUEST, ProblemTypes.INVALID, "The request is invalid; see errors.",
                problems);
        return handleExceptionInternal(e, body, headers, status, request);
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException e,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof RequestLimitsFilter.BodyTooLargeException tooLarge) {
                ProblemDetail body = detail(HttpStatus.CONTENT_TOO_LARGE, ProblemTypes.TOO_LARGE,
                        tooLarge.getMessage(), null);
                return handleExceptionInternal(e, body, headers, HttpStatus.CONTENT_TOO_LARGE, request);
            }
        }
        FieldProblem problem = describe(e);
        ProblemDetail body = detail(HttpStatus.BAD_REQUEST, ProblemTypes.MALFORMED,
                "The request body is not the expected JSON; see errors.", List.of(problem));
        return handleExceptionInternal(e, body, headers, status, request);
    }

    /** Gives Spring's own problem details (404, 405, 415 ...) pgharvest's type URIs. */
    @Override
    protected ResponseEntity<Object> handleExceptionInternal(Exception e, Object body, HttpHeaders headers,
            HttpStatusCode status, WebRequest request) {
        Object problem = body == null && e instanceof ErrorResponse error ? error.getBody() : body;
        if (problem instanceof ProblemDetail detail
                && (detail.getType() == null || "about:blank".equals(detail.getType().toString()))) {
            detail.setType(ProblemTypes.forStatus(status.value()));
        }
        return super.handleExceptionInternal(e, problem, headers, status, request);
    }

    /** What is wrong with an unreadable body, without quoting the body. */
    private static FieldProblem describe(HttpMessageNotReadableException e) {
        Throwable cause = e.getCause();
        if (cause instanceof UnrecognizedPropertyException unknown) {
            return new FieldProblem(JacksonPaths.describe(unknown.getPath()), "unknown property; expected one of "
                    + unknown.getKnownPropertyIds());
        }
        if (cause instanceof InputCoercionException coercion) {
            String field = coercion.getPath().isEmpty() ? "body" : JacksonPaths.describe(coercion.getPath());
            return new FieldProblem(field, "is out of range; expected a whole number up to " + Integer.MAX_VALUE);
        }
        if (cause instanceof MismatchedInputException mismatch && mismatch.getPath().isEmpty()) {
            Class<?> target = mismatch.getTargetType();
            return new FieldProblem("body", "has the wrong type; expected "
                    + (target == null ? "a JSON object" : "a JSON object (" + typeName(target) + ")"));
        }
        if (cause instanceof MismatchedInputException mismatch && !mismatch.getPath().isEmpty()) {
            Class<?> target = mismatch.getTargetType();
            return new FieldProblem(JacksonPaths.describe(mismatch.getPath()),
                    target == null ? "has the wrong type" : "has the wrong type; expected " + typeName(target));
        }
        String duplicate = duplicateKey(cause);
        if (duplicate != null) {
            String parent = cause instanceof JacksonException jackson && !jackson.getPath().isEmpty()
                    ? JacksonPaths.describe(jackson.getPath()) + "." : "";
            return new FieldProblem(parent + duplicate, "is given more than once");
        }
        if (cause instanceof StreamReadException syntax && syntax.getLocation() != null) {
            return new FieldProblem("body", "not valid JSON at line " + syntax.getLocation().getLineNr()
                    + ", column " + syntax.getLocation().getColumnNr());
        }
        if (cause instanceof JacksonException jackson && !jackson.getPath().isEmpty()) {
            return new FieldProblem(JacksonPaths.describe(jackson.getPath()), "cannot be read");
        }
        return new FieldProblem("body", cause == null ? "a JSON body is required" : "not valid JSON");
    }

    /** The key Jackson's strict duplicate detection found twice, or null. */
    private static String duplicateKey(Throwable cause) {
        if (!(cause instanceof StreamReadException) || cause.getMessage() == null) {
            return null;
        }
        var matcher = DUPLICATE_KEY.matcher(cause.getMessage());
        return matcher.find() ? matcher.group(1) : null;
    }

    private static String typeName(Class<?> type) {
        if (Number.class.isAssignableFrom(type) || type == int.class || type == long.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        if (Map.class.isAssignableFrom(type)) {
            return "an object";
        }
        if (Collection.class.isAssignableFrom(type)) {
            return "an array";
        }
        return "a " + type.getSimpleName();
    }

    private static ResponseEntity<ProblemDetail> problem(HttpStatus status, URI type, String detail,
            List<FieldProblem> errors) {
        return ResponseEntity.status(status).body(detail(status, type, detail, errors));
    }

    private static ProblemDetail detail(HttpStatus status, URI type, String text, List<FieldProblem> errors) {
        ProblemDetail detail = ProblemDetail.forStatusAndDetail(status, text);
        detail.setType(type);
        if (errors != null) {
            detail.setProperty("errors", errors);
        }
        return detail;
    }

    private static String noun(StoreTable table) {
        return StoreException.noun(table);
    }
}
