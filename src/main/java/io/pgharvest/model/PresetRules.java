package io.pgharvest.model;

import java.util.ArrayList;
import java.util.List;

/**
 * Every rule a {@link Preset} must satisfy: a name of {@value Identifiers#PRESET_NAME_REGEX} and known
 * metrics with positive intervals.
 */
public final class PresetRules {

    private PresetRules() {
    }

    /** Every problem of {@code preset}, checked against the metrics of {@code config}. */
    public static List<FieldProblem> check(Preset preset, ConfigSnapshot config) {
        var problems = new ArrayList<FieldProblem>();
        Identifiers.checkPresetName("name", preset.name(), problems);
        if (preset.metrics().isEmpty()) {
            problems.add(new FieldProblem("metrics", "a preset needs at least one metric"));
        }
        preset.metrics().forEach((metric, interval) -> {
            String field = "metrics." + metric;
            if (!config.metrics().containsKey(metric)) {
                problems.add(new FieldProblem(field, "unknown metric '" + metric + "'"));
            }
            if (interval == null || interval <= 0) {
                problems.add(new FieldProblem(field, "the interval must be a positive number of seconds"));
            }
        });
        return problems;
    }
}
