package io.pgharvest.metric;

import io.pgharvest.model.Preset;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Map;

/** A preset as the API returns it, with where it comes from and its modify index. */
@Schema(name = "Preset")
record PresetResponse(
        String name,
        String description,
        Map<String, Integer> metrics,
        @Schema(description = "a preset of this name ships with pgharvest", accessMode = Schema.AccessMode.READ_ONLY)
        boolean builtIn,
        @Schema(description = "the operator's definition replaces the built-in one; DELETE restores it",
                accessMode = Schema.AccessMode.READ_ONLY)
        boolean overridden,
        @Schema(accessMode = Schema.AccessMode.READ_ONLY) long modifyIndex) {

    static PresetResponse of(Preset preset, Origin origin, long modifyIndex) {
        return new PresetResponse(preset.name(), preset.description(), preset.metrics(), origin.builtIn(),
                origin.overridden(), modifyIndex);
    }
}
