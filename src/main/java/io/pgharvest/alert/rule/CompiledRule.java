package io.pgharvest.alert.rule;

import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelVariableResolver;
import java.util.Map;
import java.util.Set;

/**
 * A rule checked once and ready to run: its condition's program and its templates. Evaluating
 * never throws: a row the condition cannot be evaluated on (a NULL column, a missing tag) does
 * not match.
 *
 * @param valueColumn the first column the condition names, whose value an alert reports; may be null
 * @param usesPrevious the condition reads {@code previous}: evaluation keeps each row for the next measurement
 * @param names the columns and tags of the row the condition reads (a replay needs every one)
 */
public record CompiledRule(AlertRule rule, CelRuntime.Program program, String valueColumn,
        boolean usesPrevious, Set<String> names, AlertTemplate summary, AlertTemplate description) {

    public CompiledRule {
        names = Set.copyOf(names);
    }

    /** Whether the condition holds for the variables of one row ({@link ConditionVariables}). */
    public boolean holds(Map<String, ?> variables) {
        try {
            return Boolean.TRUE.equals(program.eval(variables));
        } catch (CelEvaluationException | RuntimeException e) {
            return false;
        }
    }

    /** {@link #holds(Map)} with the variables looked up as the condition asks ({@link ConditionVariables#resolver}). */
    public boolean holds(CelVariableResolver variables) {
        try {
            return Boolean.TRUE.equals(program.eval(variables));
        } catch (CelEvaluationException | RuntimeException e) {
            return false;
        }
    }

    public String name() {
        return rule.name();
    }
}
