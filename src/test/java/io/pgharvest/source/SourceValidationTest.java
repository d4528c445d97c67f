package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SourceValidationTest extends ApiTestBase {

    static Stream<Arguments> invalidSources() {
        return Stream.of(
                Arguments.of("name with a space", Map.of("name", "bad name"), "name"),
                Arguments.of("name starting with a dot", Map.of("name", ".hidden"), "name"),
                Arguments.of("name of 64 characters", Map.of("name", "a".repeat(64)), "name"),
                Arguments.of("missing name", Map.of("name", ""), "name"),
                Arguments.of("missing connStr", Map.of("connStr", ""), "connStr"),
                Arguments.of("unparseable connStr", Map.of("connStr", "mysql://db/x"), "connStr"),
                Arguments.of("bad port in connStr", Map.of("connStr", "postgresql://db:99999/x"), "connStr"),
                Arguments.of("the mask as a new password", Map.of("connStr", "postgresql://u:********@db/x"), "connStr"),
                Arguments.of("unknown kind", Map.of("kind", "oracle"), "kind"),
                Arguments.of("unknown preset", Map.of("preset", "no_such_preset"), "preset"),
                Arguments.of("unknown standby preset", Map.of("standbyPreset", "no_such_preset"), "standbyPreset"),
                Arguments.of("unknown metric", Map.of("metrics", Map.of("no_such_metric", 60)), "metrics.no_such_metric"),
                Arguments.of("negative interval", Map.of("metrics", Map.of("db_stats", -5)), "metrics.db_stats"),
                Arguments.of("unknown standby metric", Map.of("standbyMetrics", Map.of("nope", 60)), "standbyMetrics.nope"),
                Arguments.of("bad include pattern", Map.of("includePattern", "(unclosed"), "includePattern"),
                Arguments.of("bad exclude pattern", Map.of("excludePattern", "[z-a]"), "excludePattern"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidSources")
    void anInvalidSourceIsRefusedNamingTheFieldAndChangesNothing(String rule, Map<String, Object> change, String field)
            throws Exception {
        var source = new HashMap<String, Object>(Map.of("name", "valid-name", "connStr", "postgresql://u:pw@db/x"));
        source.putAll(change);
        long indexBefore = api().get("/api/v1/sources").index();
        byte[] fileBefore = readSourcesFile();

        var refused = api().post("/api/v1/sources", source);

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
        assertThat(refused.errorFields()).contains(field);
        assertThat(refused.body()).doesNotContain("pw@");
        assertThat(api().get("/api/v1/sources").index()).isEqualTo(indexBefore);
        assertThat(api().get("/api/v1/sources/valid-name").status()).isEqualTo(404);
        assertThat(readSourcesFile()).isEqualTo(fileBefore);
    }

    @Test
    void everyProblemOfASourceIsReportedAtOnce() {
        var refused = api().post("/api/v1/sources", Map.of("name", "several", "connStr", "postgresql://db/x",
                "preset", "nope", "metrics", Map.of("zzz", 60, "db_stats", -1), "includePattern", "("));

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactlyInAnyOrder("preset", "metrics.zzz", "metrics.db_stats",
                "includePattern");
    }

    @Test
    void intervalZeroRemovesAPresetMetricAndIsAccepted() {
        var created = api().post("/api/v1/sources", Map.of("name", "zero-interval", "connStr", "postgresql://db/x",
                "preset", "minimal", "metrics", Map.of("db_size", 0)));

        assertThat(created.status()).isEqualTo(201);
        assertThat(api().get("/api/v1/sources/zero-interval/status").json().get("metrics").has("db_size")).isFalse();
    }

    @Test
    void aBodyNameThatContradictsThePathIsRefused() {
        var refused = api().put("/api/v1/sources/path-name", Map.of("name", "body-name", "connStr", "postgresql://db/x"));

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("name");
    }

    @Test
    void theMaskIsRefusedWhenNoPasswordIsStored() {
        api().put("/api/v1/sources/no-stored-pw", Map.of("connStr", "postgresql://u@db/x"));

        var refused = api().put("/api/v1/sources/no-stored-pw", Map.of("connStr", "postgresql://u:********@db/x"));

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("connStr");
    }

    private static byte[] readSourcesFile() throws Exception {
        var file = DATA_DIR.resolve("sources.yaml");
        return Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
    }

    @Test
    void anUnknownKindIsReportedTogetherWithTheOtherProblems() {
        var answer = api().post("/api/v1/sources", Map.of("name", "v-kind", "connStr", "postgresql://db/x",
                "kind", "oracle", "preset", "nope"));

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.errorFields()).containsExactlyInAnyOrder("kind", "preset");
        assertThat(api().get("/api/v1/sources/v-kind").status()).isEqualTo(404);
    }
}
