package io.pgharvest.alert.notify.dispatch;


import io.pgharvest.model.FieldProblem;
import java.util.List;
import java.util.stream.Collectors;

/** A receiver or silence given to the API is invalid; {@link #problems()} names every offending field. */
public class NotifyInputException extends RuntimeException {

    private final List<FieldProblem> problems;

    public NotifyInputException(String what, List<FieldProblem> problems) {
        super(what + " is invalid: " + problems.stream().map(p -> p.field() + ": " + p.message())
                .collect(Collectors.joining("; ")));
        this.problems = List.copyOf(problems);
    }

    public List<FieldProblem> problems() {
        return problems;
    }
}
