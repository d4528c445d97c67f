package io.pgharvest.metric;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

class MetricApiTest extends ApiTestBase {

    private static Map<String, Object> metric(String name) {
        return new HashMap<>(Map.of("name", name, "description", "test metric",
                "sqls", Map.of("14", "select 1 as one", "17", "select 2 as one"), "gauges", List.of("*")));
    }

    @Test
    void aMetricCanBeCreatedReadReplacedAndDeleted() {
        var created = api().post("/api/v1/metrics", metric("m_crud"));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        JsonNode body = created.json();
        assertThat(body.get("sqls").get("17").asString()).isEqualTo("select 2 as one");
        assertThat(body.get("nodeStatus").asString()).isEqualTo("any");
        assertThat(body.get("builtIn").asBoolean()).isFalse();
        assertThat(body.get("overridden").asBoolean()).isFalse();

        var replacement = metric("m_crud");
        replacement.put("nodeStatus", "standby");
        replacement.put("statementTimeoutSeconds", 7);
        var replaced = api().put("/api/v1/metrics/m_crud", replacement);
        assertThat(replaced.status()).isEqualTo(200);
        assertThat(api().get("/api/v1/metrics/m_crud").json().get("statementTimeoutSeconds").asInt()).isEqualTo(7);
        assertThat(api().get("/api/v1/metrics/m_crud").json().get("nodeStatus").asString()).isEqualTo("standby");

        assertThat(api().delete("/api/v1/metrics/m_crud").status()).isEqualTo(204);
        assertThat(api().get("/api/v1/metrics/m_crud").status()).isEqualTo(404);
    }

    @Test
    void aNativeMetricNamesItsImplementationInsteadOfSql() {
        var body = new HashMap<String, Object>(Map.of("name", "m_host_load", "description", "load of this host",
                "native", "cpu_load", "gauges", List.of("*"), "storageName", "cpu_load"));

        var created = api().post("/api/v1/metrics", body);

        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        assertThat(created.json().get("native").asString()).isEqualTo("cpu_load");
        assertThat(created.json().get("sqls").isEmpty()).isTrue();
        assertThat(api().get("/api/v1/metrics/psutil_mem").json().get("native").asString()).isEqualTo("psutil_mem");
        var unknown = api().post("/api/v1/metrics", Map.of("name", "m_unknown_native", "native", "vmstat"));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.toString()).contains("unknown native implementation 'vmstat'").contains("cpu_load");
    }

    @Test
    void theListMarksBuiltInMetrics() {
        api().post("/api/v1/metrics", metric("m_listed"));

        var list = api().get("/api/v1/metrics");

        assertThat(list.status()).isEqualTo(200);
        Map<String, Boolean> builtIn = new HashMap<>();
        list.json().valueStream().forEach(m -> builtIn.put(m.get("name").asString(), m.get("builtIn").asBoolean()));
        assertThat(builtIn).containsEntry("db_stats", true).containsEntry("m_listed", false);
    }

    @Test
    void creatingAnExistingOrBuiltInNameAnswers409() {
        api().post("/api/v1/metrics", metric("m_dup"));

        assertThat(api().post("/api/v1/metrics", metric("m_dup")).status()).isEqualTo(409);
        var builtIn = api().post("/api/v1/metrics", metric("db_size"));
        assertThat(builtIn.status()).isEqualTo(409);
        assertThat(builtIn.json().get("detail").asString()).contains("built-in").contains("PUT");
    }

    @Test
    void putOnABuiltInCreatesAnOverrideAndDeleteRevertsIt() {
        String builtInSql = api().get("/api/v1/metrics/archiver").json().get("sqls").get("14").asString();

        var overridden = api().put("/api/v1/metrics/archiver", metric("archiver"));
        assertThat(overridden.status()).isEqualTo(200);
        JsonNode read = api().get("/api/v1/metrics/archiver").json();
        assertThat(read.get("builtIn").asBoolean()).isTrue();
        assertThat(read.get("overridden").asBoolean()).isTrue();
        assertThat(read.get("sqls").get("14").asString()).isEqualTo("select 1 as one");

        assertThat(api().delete("/api/v1/metrics/archiver").status()).isEqualTo(204);
        JsonNode reverted = api().get("/api/v1/metrics/archiver").json();
        assertThat(reverted.get("overridden").asBoolean()).isFalse();
        assertThat(reverted.get("sqls").get("14").asString()).isEqualTo(builtInSql);
    }

    @Test
    void deletingAPureBuiltInAnswers409() {
        var refused = api().delete("/api/v1/metrics/db_stats");

        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/built-in");
        assertThat(api().get("/api/v1/metrics/db_stats").status()).isEqualTo(200);
    }

    @Test
    void deletingAMetricInUseAnswers409ListingTheUsers() {
        api().post("/api/v1/metrics", metric("m_used"));
        api().post("/api/v1/presets", Map.of("name", "p_uses_m_used", "metrics", Map.of("m_used", 60)));
        api().post("/api/v1/sources", Map.of("name", "uses-m-used", "connStr", "postgresql://db/x",
                "standbyMetrics", Map.of("m_used", 30)));

        var refused = api().delete("/api/v1/metrics/m_used");

        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/in-use");
        assertThat(refused.json().get("usedBy").get("sources").get(0).asString()).isEqualTo("uses-m-used");
        assertThat(refused.json().get("usedBy").get("presets").get(0).asString()).isEqualTo("p_uses_m_used");
        assertThat(api().get("/api/v1/metrics/m_used").status()).isEqualTo(200);
    }

    static Stream<Arguments> invalidMetrics() {
        return Stream.of(
                Arguments.of("upper-case name", Map.of("name", "DbStats"), "name"),
                Arguments.of("name with a dash", Map.of("name", "db-stats"), "name"),
                Arguments.of("name of 64 characters", Map.of("name", "m".repeat(64)), "name"),
                Arguments.of("no sqls", Map.of("sqls", Map.of()), "sqls"),
                Arguments.of("sqls key not a number", Map.of("sqls", Map.of("abc", "select 1")), "sqls.abc"),
                Arguments.of("sqls key not a major version", Map.of("sqls", Map.of("8", "select 1")), "sqls.8"),
                Arguments.of("sqls key with a minor version", Map.of("sqls", Map.of("9.6", "select 1")), "sqls.9.6"),
                Arguments.of("empty sql", Map.of("sqls", Map.of("14", " ")), "sqls.14"),
                Arguments.of("unknown node status", Map.of("nodeStatus", "leader"), "nodeStatus"),
                Arguments.of("bad storage name", Map.of("storageName", "Stats Table"), "storageName"),
                Arguments.of("zero statement timeout", Map.of("statementTimeoutSeconds", 0), "statementTimeoutSeconds"),
                Arguments.of("huge statement timeout", Map.of("statementTimeoutSeconds", 100_000), "statementTimeoutSeconds"),
                Arguments.of("blank gauge", Map.of("gauges", List.of("")), "gauges[0]"),
                Arguments.of("unknown native implementation", Map.of("sqls", Map.of(), "native", "vmstat"), "native"),
                Arguments.of("native with sql", Map.of("native", "cpu_load"), "sqls"),
                Arguments.of("native with a statement timeout", Map.of("sqls", Map.of(), "native", "cpu_load",
                        "statementTimeoutSeconds", 5), "statementTimeoutSeconds"),
                Arguments.of("native and instance-level", Map.of("sqls", Map.of(), "native", "cpu_load",
                        "instanceLevel", true), "instanceLevel"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidMetrics")
    void anInvalidMetricIsRefusedNamingTheField(String rule, Map<String, Object> change, String field) {
        var body = metric("m_valid");
        body.putAll(change);
        long indexBefore = api().get("/api/v1/metrics").index();

        var refused = api().post("/api/v1/metrics", body);

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorFields()).contains(field);
        assertThat(api().get("/api/v1/metrics").index()).isEqualTo(indexBefore);
        assertThat(api().get("/api/v1/metrics/m_valid").status()).isEqualTo(404);
    }
}
