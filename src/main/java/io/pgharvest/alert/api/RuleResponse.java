package io.pgharvest.alert.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.pgharvest.alert.rule.AlertRuleBody;
import io.pgharvest.alert.store.RuleEntry;
import io.pgharvest.model.FieldProblem;
import java.util.List;
import java.util.Map;

/**
 * A rule as the API shows it: the fields it was written with, where it comes from
 * ({@code built-in}, {@code override}, {@code own}), its modify index, and why it is not
 * evaluated when it no longer compiles ({@code problems}, e.g. its metric was deleted).
 */
record RuleResponse(String name, String metric, String condition, @JsonProperty("for") String forDuration,
        String keepFiringFor, String severity, Map<String, String> labels, String summary, String description,
        String runbook, AlertRuleBody.Sources sources, Map<String, Double> params,
        Map<String, Map<String, Double>> overrides, boolean enabled, RuleEntry.Origin origin, long modifyIndex,
        List<FieldProblem> problems) {

    static RuleResponse of(RuleEntry entry) {
        AlertRuleBody b = entry.compiled() != null ? AlertRuleBody.of(entry.compiled().rule()) : entry.body();
        return new RuleResponse(b.name(), b.metric(), b.condition(), b.forDuration(), b.keepFiringFor(), b.severity(),
                b.labels(), b.summary(), b.description(), b.runbook(), b.sources(), b.params(), b.overrides(),
                b.enabled() == null || b.enabled(), entry.origin(), entry.modifyIndex(), entry.problems());
    }
}
