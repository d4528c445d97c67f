package io.pgharvest.metric;

import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Preset;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Presets: named metric selections, built-in plus the operator's own, which may override them. */
@RestController
@RequestMapping("/api/v1/presets")
@Tag(name = "Presets", description = "Named sets of metrics with intervals: built-in ones and the operator's own,"
        + " which may override them. A preset still used by sources cannot be deleted.")
class PresetController extends CatalogController<Preset, PresetRequest, PresetResponse> {

    PresetController(ConfigStore store) {
        super(store, StoreTable.PRESETS, "/api/v1/presets", ConfigSnapshot::presets, Preset::name,
                PresetResponse::of, PresetRequest::toPreset,
                new StoreCalls<>(store::createPreset, store::putPreset, store::deletePreset));
    }
}
