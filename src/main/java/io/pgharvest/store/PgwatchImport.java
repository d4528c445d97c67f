package io.pgharvest.store;

import io.pgharvest.model.FieldProblem;
import java.util.List;

/**
 * pgwatch configuration read for import: the items, the notices about what was not taken over as
 * written, and the problems found while reading (e.g. an environment variable that is not set),
 * which make the import invalid. Field names are pgwatch's ({@code conn_str}, {@code custom_metrics}).
 */
public record PgwatchImport(ConfigChanges changes, List<ImportNotice> notices, List<FieldProblem> problems) {

    public PgwatchImport {
        notices = List.copyOf(notices);
        problems = List.copyOf(problems);
    }
}
