package io.pgharvest.metric;

import io.pgharvest.api.RequestNames;
import io.pgharvest.model.FieldProblem;
import io.pgharvest.model.Preset;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.InvalidConfigException;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.ArrayList;
import java.util.Map;

/** A preset as a client sends it; {@code name} is needed on create only. */
@Schema(name = "PresetInput", description = "A preset as sent on create or replace")
record PresetRequest(
        @Schema(example = "basic") String name,
        String description,
        @Schema(description = "metric -> interval in seconds", example = "{\"db_stats\": 60, \"backends\": 60}")
        Map<String, Integer> metrics) {

    /** @throws InvalidConfigException naming {@code name} when it is missing or contradicts the path */
    Preset toPreset(String pathName) {
        var problems = new ArrayList<FieldProblem>();
        String effectiveName = RequestNames.resolve(pathName, name, problems);
        if (!problems.isEmpty()) {
            throw new InvalidConfigException(StoreTable.PRESETS, String.valueOf(effectiveName), problems);
        }
        return new Preset(effectiveName, description, metrics);
    }
}
