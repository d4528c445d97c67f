package io.pgharvest.alert.notify.dispatch;


import io.pgharvest.api.ProblemTypes;
import io.pgharvest.model.FieldProblem;
import java.net.URI;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * RFC 9457 problems of the receivers' and silences' API, in pgharvest's problem types; ahead of
 * the API's catch-all, and only for these controllers. Details never quote submitted values.
 */
@RestControllerAdvice(assignableTypes = {ReceiverController.class, SilenceController.class})
@Order(Ordered.HIGHEST_PRECEDENCE)
class NotifyProblems {

    /** The named receiver or silence does not exist. */
    static final class NotFound extends RuntimeException {
        NotFound(String message) {
            super(message);
        }
    }

    /** A receiver of that name exists already. */
    static final class Duplicate extends RuntimeException {
        Duplicate(String message) {
            super(message);
        }
    }

    @ExceptionHandler(NotifyInputException.class)
    ResponseEntity<ProblemDetail> invalid(NotifyInputException e) {
        return problem(HttpStatus.BAD_REQUEST, ProblemTypes.INVALID, e.getMessage().startsWith("silence")
                ? "The silence is invalid; see errors." : "The receiver is invalid; see errors.", e.problems());
    }

    @ExceptionHandler(NotFound.class)
    ResponseEntity<ProblemDetail> notFound(NotFound e) {
        return problem(HttpStatus.NOT_FOUND, ProblemTypes.NOT_FOUND, e.getMessage(), null);
    }

    @ExceptionHandler(Duplicate.class)
    ResponseEntity<ProblemDetail> duplicate(Duplicate e) {
        return problem(HttpStatus.CONFLICT, ProblemTypes.DUPLICATE, e.getMessage(), null);
    }

    private static ResponseEntity<ProblemDetail> problem(HttpStatus status, URI type, String text,
            List<FieldProblem> errors) {
        ProblemDetail detail = ProblemDetail.forStatusAndDetail(status, text);
        detail.setType(type);
        if (errors != null) {
            detail.setProperty("errors", errors);
        }
        return ResponseEntity.status(status).body(detail);
    }
}
