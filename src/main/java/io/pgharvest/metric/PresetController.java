package io.pgharvest.metric;

import io.pgharvest.api.TableResource;
import io.pgharvest.model.ConfigSnapshot;
import io.pgharvest.model.Preset;
import io.pgharvest.model.StoreTable;
import io.pgharvest.store.ConfigStore;
import io.pgharvest.store.Stored;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Presets: named metric selections, built-in plus the operator's own, which may override them. */
@RestController
@RequestMapping(PresetController.PATH)
@Tag(name = "Presets", description = "Named sets of metrics with intervals: built-in ones and the operator's own,"
        + " which may override them. A preset still used by sources cannot be deleted.")
class PresetController extends CatalogController<Preset, PresetRequest, PresetResponse> {

    static final String PATH = "/api/v1/presets";

    private final ConfigStore store;

    PresetController(ConfigStore store) {
        super(new TableResource<>(store, StoreTable.PRESETS, PATH, ConfigSnapshot::presets, Preset::name,
                (preset, modifyIndex) -> PresetResponse.of(preset,
                        Origin.of(store.origin(StoreTable.PRESETS, preset.name())), modifyIndex)));
        this.store = store;
    }

    @Override
    Stored<Preset> create(PresetRequest request) {
        return store.createPreset(request.toPreset(null));
    }

    @Override
    Stored<Preset> put(String name, PresetRequest request) {
        return store.putPreset(request.toPreset(name));
    }

    @Override
    long delete(String name) {
        return store.deletePreset(name);
    }
}
