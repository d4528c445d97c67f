package io.pgharvest.alert.rule;

import io.pgharvest.model.FieldProblem;
import java.util.List;
import java.util.stream.Collectors;

/** A rule failed validation; {@link #problems()} names every offending field. Nothing was saved. */
public class InvalidRuleException extends RuntimeException {

    private final List<FieldProblem> problems;

    public InvalidRuleException(String name, List<FieldProblem> problems) {
        super("alert rule '" + name + "' is invalid: " + problems.stream()
                .map(p -> p.field() + ": " + p.message()).collect(Collectors.joining("; ")));
        this.problems = List.copyOf(problems);
    }

    public List<FieldProblem> problems() {
        return problems;
    }
}
