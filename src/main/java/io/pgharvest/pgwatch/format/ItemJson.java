package io.pgharvest.pgwatch.format;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pgharvest.model.MetricDefinition;
import io.pgharvest.model.Preset;
import io.pgharvest.model.Source;
import io.pgharvest.model.StoreTable;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * An item in the configuration database's form: the same snake_case entry as in pgwatch's files
 * ({@link SourceEntry}, {@link MetricEntry}, {@link PresetEntry}), as JSON.
 */
public final class ItemJson {

    private final JsonMapper mapper = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .changeDefaultPropertyInclusion(inclusion -> inclusion.withValueInclusion(JsonInclude.Include.NON_EMPTY))
            .build();

    public String write(StoreTable table, Object item) {
        Object entry = switch (table) {
            case SOURCES -> SourceEntry.of((Source) item);
            case METRICS -> MetricEntry.of((MetricDefinition) item);
            case PRESETS -> PresetEntry.of((Preset) item);
        };
        return mapper.writeValueAsString(entry);
    }

    public Object read(StoreTable table, String name, String json) {
        return switch (table) {
            case SOURCES -> mapper.readValue(json, SourceEntry.class).toSource();
            case METRICS -> mapper.readValue(json, MetricEntry.class).toDefinition(name);
            case PRESETS -> mapper.readValue(json, PresetEntry.class).toPreset(name);
        };
    }
}
