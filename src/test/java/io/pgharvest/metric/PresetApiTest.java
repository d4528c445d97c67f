package io.pgharvest.metric;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PresetApiTest extends ApiTestBase {

    @Test
    void aPresetCanBeCreatedReadReplacedAndDeleted() {
        var created = api().post("/api/v1/presets", Map.of("name", "p_crud", "description", "mine",
                "metrics", Map.of("db_stats", 60, "backends", 30)));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(created.json().get("metrics").get("backends").asInt()).isEqualTo(30);
        assertThat(created.json().get("builtIn").asBoolean()).isFalse();

        var replaced = api().put("/api/v1/presets/p_crud", Map.of("metrics", Map.of("locks", 10)));
        assertThat(replaced.status()).isEqualTo(200);
        assertThat(api().get("/api/v1/presets/p_crud").json().get("metrics").propertyNames()).containsExactly("locks");

        assertThat(api().delete("/api/v1/presets/p_crud").status()).isEqualTo(204);
        assertThat(api().get("/api/v1/presets/p_crud").status()).isEqualTo(404);
    }

    @Test
    void theBuiltInPresetsAreListed() {
        var names = api().get("/api/v1/presets").json().valueStream()
                .filter(p -> p.get("builtIn").asBoolean()).map(p -> p.get("name").asString()).toList();

        assertThat(names).contains("minimal", "basic", "standard", "exhaustive");
    }

    @Test
    void putOnABuiltInPresetOverridesItAndDeleteRevertsIt() {
        var overridden = api().put("/api/v1/presets/exhaustive", Map.of("metrics", Map.of("db_stats", 5)));
        assertThat(overridden.status()).isEqualTo(200);
        assertThat(overridden.json().get("overridden").asBoolean()).isTrue();

        assertThat(api().delete("/api/v1/presets/exhaustive").status()).isEqualTo(204);
        var reverted = api().get("/api/v1/presets/exhaustive").json();
        assertThat(reverted.get("overridden").asBoolean()).isFalse();
        assertThat(reverted.get("metrics").get("db_stats").asInt()).isEqualTo(30);
        assertThat(api().delete("/api/v1/presets/exhaustive").status()).isEqualTo(409);
    }

    @Test
    void deletingAPresetInUseAnswers409ListingTheSources() {
        api().post("/api/v1/presets", Map.of("name", "p_used", "metrics", Map.of("db_stats", 60)));
        api().post("/api/v1/sources", Map.of("name", "uses-p-used", "connStr", "postgresql://db/x", "preset", "p_used"));

        var refused = api().delete("/api/v1/presets/p_used");

        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().get("usedBy").get("sources").get(0).asString()).isEqualTo("uses-p-used");
        assertThat(refused.json().get("detail").asString()).contains("uses-p-used");
    }

    @Test
    void creatingAnExistingPresetAnswers409() {
        api().post("/api/v1/presets", Map.of("name", "p_dup", "metrics", Map.of("db_stats", 60)));

        assertThat(api().post("/api/v1/presets", Map.of("name", "p_dup", "metrics", Map.of("db_stats", 60))).status())
                .isEqualTo(409);
        assertThat(api().post("/api/v1/presets", Map.of("name", "basic", "metrics", Map.of("db_stats", 60))).status())
                .isEqualTo(409);
    }

    static Stream<Arguments> invalidPresets() {
        return Stream.of(
                Arguments.of("bad name", Map.of("name", "My Preset", "metrics", Map.of("db_stats", 60)), "name"),
                Arguments.of("no metrics", Map.of("name", "p_empty", "metrics", Map.of()), "metrics"),
                Arguments.of("unknown metric", Map.of("name", "p_unknown", "metrics", Map.of("nope", 60)), "metrics.nope"),
                Arguments.of("zero interval", Map.of("name", "p_zero", "metrics", Map.of("db_stats", 0)), "metrics.db_stats"),
                Arguments.of("negative interval", Map.of("name", "p_neg", "metrics", Map.of("db_stats", -1)), "metrics.db_stats"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidPresets")
    void anInvalidPresetIsRefusedNamingTheField(String rule, Map<String, Object> preset, String field) {
        long indexBefore = api().get("/api/v1/presets").index();

        var refused = api().post("/api/v1/presets", preset);

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorFields()).contains(field);
        assertThat(api().get("/api/v1/presets").index()).isEqualTo(indexBefore);
    }
}
