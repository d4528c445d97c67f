package io.pgharvest.pgwatch;

import io.pgharvest.model.FieldProblem;
import io.pgharvest.store.ConfigChanges;
import java.util.List;
import java.util.Map;

/**
 * pgwatch configuration read for import: the items, the notices about what was not taken over as
 * written, and the problems found while reading (e.g. an environment variable that is not set),
 * which make the import invalid. Field names are pgwatch's ({@code conn_str}, {@code custom_metrics}).
 *
 * @param locations where each item was read, keyed like problem fields ({@code metrics[db_stats]},
 *                  {@code presets[basic]}, {@code sources[orders]}), e.g. {@code metrics.yaml line 12}
 */
public record PgwatchImport(ConfigChanges changes, List<ImportNotice> notices, List<FieldProblem> problems,
        Map<String, String> locations) {

    public PgwatchImport {
        notices = List.copyOf(notices);
        problems = List.copyOf(problems);
        locations = Map.copyOf(locations);
    }

    /** Where the item {@code key} ({@code metrics[name]}) was read; "import" when not known. */
    public String locationOf(String key) {
        return locations.getOrDefault(key, "import");
    }
}
