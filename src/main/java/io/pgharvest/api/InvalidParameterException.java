package io.pgharvest.api;

import io.pgharvest.model.FieldProblem;
import java.util.List;

/** A query parameter of a request does not parse; answered with 400 problem details. */
public class InvalidParameterException extends RuntimeException {

    private final List<FieldProblem> problems;

    public InvalidParameterException(List<FieldProblem> problems) {
        super("invalid query parameters: " + problems);
        this.problems = List.copyOf(problems);
    }

    public List<FieldProblem> problems() {
        return problems;
    }
}
