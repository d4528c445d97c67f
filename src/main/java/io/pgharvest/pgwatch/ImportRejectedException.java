package io.pgharvest.pgwatch;

import io.pgharvest.model.FieldProblem;
import java.util.List;
import java.util.stream.Collectors;

/** An import was refused and nothing changed; problems use the field names of pgwatch's files. */
public class ImportRejectedException extends RuntimeException {

    private final List<FieldProblem> problems;
    private final List<ImportNotice> notices;

    ImportRejectedException(String what, List<FieldProblem> problems, List<ImportNotice> notices) {
        super(what + " was not imported; nothing was changed: " + problems.stream()
                .map(p -> p.field() + ": " + p.message()).collect(Collectors.joining("; ")));
        this.problems = List.copyOf(problems);
        this.notices = List.copyOf(notices);
    }

    public List<FieldProblem> problems() {
        return problems;
    }

    public List<ImportNotice> notices() {
        return notices;
    }
}
