package io.pgharvest.alert.api;

import io.pgharvest.alert.evaluation.AlertEvaluator;
import io.pgharvest.alert.evaluation.RuleCheck;
import io.pgharvest.alert.store.RuleChangeException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A source's check-up: every rule that applies to it with its current value, threshold and state,
 * so "is anything near a limit?" has an answer before an alert fires. Evaluated on the rows a rule's
 * test reads (the last measurement of each rule's metric), by the same code.
 */
@RestController
@Tag(name = "Alerts")
class AlertCheckController {

    private final AlertEvaluator evaluator;

    AlertCheckController(AlertEvaluator evaluator) {
        this.evaluator = evaluator;
    }

    /**
     * @param evaluatedHere whether this instance collects the source now: only then does it have its rows
     */
    record CheckUp(String source, boolean evaluatedHere, List<RuleCheck> checks) {
    }

    @GetMapping("/api/v1/sources/{name}/alert-checks")
    @Operation(summary = "A source's check-up", description = "Every enabled rule that applies to the source, each on"
            + " the last measurement of its metric: per row the value the rule reports and its state (firing,"
            + " pending, ok); the rule's state is its worst row's, no-data when the metric has not arrived here."
            + " Firing and pending rules first. 404 for a source neither configured nor measured here.")
    CheckUp checks(@PathVariable String name) {
        List<RuleCheck> checks = evaluator.checkUp(name).orElseThrow(() -> new RuleChangeException(
                RuleChangeException.Reason.NOT_FOUND, "no source named '" + io.pgharvest.model.BoundedText.of(name) + "'"));
        List<String> order = List.of("firing", "pending", "ok", "no-data");
        return new CheckUp(name, evaluator.evaluatedHere(name), checks.stream()
                .sorted(java.util.Comparator.comparingInt((RuleCheck c) -> order.indexOf(c.state()))
                        .thenComparing(RuleCheck::rule)).toList());
    }
}
