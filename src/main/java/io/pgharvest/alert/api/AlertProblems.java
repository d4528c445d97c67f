package io.pgharvest.alert.api;

import io.pgharvest.alert.rule.InvalidRuleException;
import io.pgharvest.alert.store.RuleChangeException;
import io.pgharvest.api.ProblemTypes;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** RFC 9457 answers to alerting's own refusals, in the shape of the rest of the API's. */
@RestControllerAdvice(assignableTypes = {AlertRuleController.class, AlertController.class, AlertCheckController.class})
@Order(Ordered.HIGHEST_PRECEDENCE)
class AlertProblems {

    @ExceptionHandler(InvalidRuleException.class)
    ResponseEntity<ProblemDetail> invalid(InvalidRuleException e) {
        ProblemDetail detail = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                "The alert rule is invalid; see errors. Nothing was saved.");
        detail.setType(ProblemTypes.INVALID);
        detail.setProperty("errors", e.problems());
        return ResponseEntity.badRequest().body(detail);
    }

    @ExceptionHandler(RuleChangeException.class)
    ResponseEntity<ProblemDetail> refused(RuleChangeException e) {
        HttpStatus status = e.reason() == RuleChangeException.Reason.NOT_FOUND ? HttpStatus.NOT_FOUND : HttpStatus.CONFLICT;
        ProblemDetail detail = ProblemDetail.forStatusAndDetail(status, e.getMessage());
        detail.setType(switch (e.reason()) {
            case NOT_FOUND -> ProblemTypes.NOT_FOUND;
            case DUPLICATE -> ProblemTypes.DUPLICATE;
            case BUILT_IN -> ProblemTypes.BUILT_IN;
        });
        return ResponseEntity.status(status).body(detail);
    }
}
