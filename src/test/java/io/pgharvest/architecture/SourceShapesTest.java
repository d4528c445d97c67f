package io.pgharvest.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Source;
import io.swagger.v3.oas.annotations.media.Schema;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link Source} is the one description of a source's shape; the API's request and response and
 * the store's sources.yaml item map onto it and differ only where their Javadoc says why. This
 * fails when a field is added to one shape and forgotten in another.
 */
@Tag("fast")
class SourceShapesTest {

    /** Source's own name for the connection string on every wire and in every file. */
    private static final Map<String, String> WIRE_NAMES = Map.of("connection", "connStr");

    /** pgwatch's names in sources.yaml (camelCase here; snake_case on disk). */
    private static final Map<String, String> PGWATCH_NAMES = Map.of(
            "enabled", "isEnabled",
            "preset", "presetMetrics",
            "metrics", "customMetrics",
            "standbyPreset", "presetMetricsStandby",
            "standbyMetrics", "customMetricsStandby",
            "tags", "customTags",
            "onlyIfPrimary", "onlyIfMaster");

    @Test
    void theRequestIsTheSourcePlusAWriteOnlyPasswordInTheSameOrder() throws Exception {
        assertThat(components("io.pgharvest.source.SourceRequest"))
                .containsExactlyElementsOf(with(sourceFields(), 2, "password"));
    }

    @Test
    void theResponseIsTheSourcePlusItsModifyIndexInTheSameOrder() throws Exception {
        assertThat(components("io.pgharvest.source.SourceResponse"))
                .containsExactlyElementsOf(with(sourceFields(), sourceFields().size(), "modifyIndex"));
    }

    @Test
    void theStoredEntryHasEverySourceFieldUnderPgwatchsName() throws Exception {
        Set<String> expected = sourceFields().stream().map(f -> PGWATCH_NAMES.getOrDefault(f, f))
                .collect(Collectors.toSet());

        assertThat(Set.copyOf(components("io.pgharvest.pgwatch.format.SourceEntry"))).isEqualTo(expected);
    }

    /** The kinds a request may name come from the kind registry (GET /api/v1/kinds, the OpenAPI document). */
    @Test
    void theRequestTypesNoListOfKinds() throws Exception {
        Schema kind = Class.forName("io.pgharvest.source.SourceRequest").getDeclaredField("kind")
                .getAnnotation(Schema.class);

        assertThat(kind.allowableValues()).isEmpty();
    }

    private static List<String> sourceFields() {
        return Arrays.stream(Source.class.getRecordComponents()).map(RecordComponent::getName)
                .map(name -> WIRE_NAMES.getOrDefault(name, name)).toList();
    }

    private static List<String> components(String recordClass) throws ClassNotFoundException {
        return Arrays.stream(Class.forName(recordClass).getRecordComponents()).map(RecordComponent::getName).toList();
    }

    private static List<String> with(List<String> fields, int position, String added) {
        var result = new java.util.ArrayList<>(fields);
        result.add(position, added);
        return List.copyOf(new LinkedHashSet<>(result));
    }
}
