package io.pgharvest.store;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.StoreTable;
import java.util.List;
import java.util.stream.Collectors;

/** An item failed validation; {@link #problems()} names every offending field. */
public class InvalidConfigException extends StoreException {

    private final List<FieldProblem> problems;

    public InvalidConfigException(StoreTable table, String name, List<FieldProblem> problems) {
        super(table, name, noun(table) + " '" + name + "' is invalid: " + problems.stream()
                .map(p -> p.field() + ": " + p.message()).collect(Collectors.joining("; ")));
        this.problems = List.copyOf(problems);
    }

    public List<FieldProblem> problems() {
        return problems;
    }
}
