package io.pgharvest.alert.store;

import com.fasterxml.jackson.annotation.JsonValue;
import io.pgharvest.alert.rule.AlertRuleBody;
import io.pgharvest.alert.rule.CompiledRule;
import io.pgharvest.model.FieldProblem;
import java.util.List;
import java.util.Locale;

/**
 * One rule as alerting sees it: its body, where it comes from, when it last changed, and its
 * compiled form; a stored rule that no longer compiles (its metric was deleted) has none and
 * says why in {@code problems}, and is not evaluated.
 */
public record RuleEntry(AlertRuleBody body, CompiledRule compiled, List<FieldProblem> problems, Origin origin,
        long modifyIndex) {

    public enum Origin {
        BUILT_IN, OVERRIDE, OWN;

        @JsonValue
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    public RuleEntry {
        problems = problems == null ? List.of() : List.copyOf(problems);
    }

    public String name() {
        return body.name();
    }
}
