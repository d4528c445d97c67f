package io.pgharvest.store.state;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.store.ConfigStore;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@link ConfigStore#putAll} refused the changes; nothing was written. Each problem's field names
 * the item first, e.g. {@code sources[prod-db].connStr} or {@code metrics[my_metric].sqls.14}.
 */
public class RejectedChangesException extends RuntimeException {

    private final List<FieldProblem> problems;

    public RejectedChangesException(List<FieldProblem> problems) {
        super("the changes are invalid and were not applied: " + problems.stream()
                .map(p -> p.field() + ": " + p.message()).collect(Collectors.joining("; ")));
        this.problems = List.copyOf(problems);
    }

    public List<FieldProblem> problems() {
        return problems;
    }
}
