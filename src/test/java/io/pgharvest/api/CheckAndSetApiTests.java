package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Conditional writes over HTTP ({@code ?cas=N}, Consul's check-and-set), run once per kind of
 * configuration store: a writer that read an index someone else has since moved gets 409
 * {@code stale-index} naming the current index, and nothing changes.
 */
abstract class CheckAndSetApiTests extends ApiTestBase {

    abstract String prefix();

    private Map<String, Object> source(String name, boolean enabled) {
        return Map.of("name", name, "connStr", "postgresql://u:pw@127.0.0.1:1/x", "preset", "basic", "enabled", enabled);
    }

    @Test
    void aSecondWriterWithTheIndexBothReadGets409WithTheCurrentIndexAndChangesNothing() {
        String name = prefix() + "-cas-source";
        long read = api().post("/api/v1/sources", source(name, false)).json().get("modifyIndex").asLong();

        var first = api().put("/api/v1/sources/" + name + "?cas=" + read, source(name, true));
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        long now = first.json().get("modifyIndex").asLong();

        var second = api().put("/api/v1/sources/" + name + "?cas=" + read,
                Map.of("name", name, "connStr", "postgresql://u:pw@127.0.0.1:1/x", "preset", "minimal", "enabled", false));
        assertThat(second.status()).as(second.toString()).isEqualTo(409);
        assertThat(second.header("Content-Type")).startsWith("application/problem+json");
        assertThat(second.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/stale-index");
        assertThat(second.json().get("modifyIndex").asLong()).isEqualTo(now);
        assertThat(second.json().get("detail").asString()).contains(name).contains(Long.toString(now));

        var stored = api().get("/api/v1/sources/" + name).json();
        assertThat(stored.get("enabled").asBoolean()).isTrue();
        assertThat(stored.get("preset").asString()).isEqualTo("basic");
        assertThat(stored.get("modifyIndex").asLong()).isEqualTo(now);

        assertThat(api().delete("/api/v1/sources/" + name + "?cas=" + read).status()).isEqualTo(409);
        assertThat(api().get("/api/v1/sources/" + name).status()).isEqualTo(200);
        assertThat(api().delete("/api/v1/sources/" + name + "?cas=" + now).status()).isEqualTo(204);
    }

    @Test
    void metricsAndPresetsAreConditionalToo() {
        String metric = prefix().replace('-', '_') + "_cas_metric";
        long read = api().post("/api/v1/metrics", Map.of("name", metric, "sqls", Map.of("14", "select 1 as v")))
                .json().get("modifyIndex").asLong();
        assertThat(api().put("/api/v1/metrics/" + metric + "?cas=" + read,
                Map.of("sqls", Map.of("14", "select 2 as v"))).status()).isEqualTo(200);
        var stale = api().put("/api/v1/metrics/" + metric + "?cas=" + read, Map.of("sqls", Map.of("14", "select 3 as v")));
        assertThat(stale.status()).as(stale.toString()).isEqualTo(409);
        assertThat(api().get("/api/v1/metrics/" + metric).body()).contains("select 2 as v");
        assertThat(api().delete("/api/v1/metrics/" + metric + "?cas=" + read).status()).isEqualTo(409);

        String preset = prefix().replace('-', '_') + "_cas_preset";
        var created = api().put("/api/v1/presets/" + preset + "?cas=0", Map.of("metrics", Map.of(metric, 30)));
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        var again = api().put("/api/v1/presets/" + preset + "?cas=0", Map.of("metrics", Map.of(metric, 60)));
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("modifyIndex").asLong()).isEqualTo(created.json().get("modifyIndex").asLong());
        assertThat(api().get("/api/v1/presets/" + preset).body()).contains("30");
    }

    @Test
    void aMalformedCasIsRefusedNamingItAndChangesNothing() {
        String name = prefix() + "-cas-bad";
        long read = api().post("/api/v1/sources", source(name, false)).json().get("modifyIndex").asLong();
        for (String bad : new String[] {"abc", "-1", "1.5", "99999999999999999999"}) {
            var refused = api().put("/api/v1/sources/" + name + "?cas=" + bad, source(name, true));
            assertThat(refused.status()).as(bad + ": " + refused).isEqualTo(400);
            assertThat(refused.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/bad-parameter");
            assertThat(refused.errorFields()).containsExactly("cas");
            assertThat(api().delete("/api/v1/metrics/db_stats?cas=" + bad).status()).isEqualTo(400);
        }
        var stored = api().get("/api/v1/sources/" + name).json();
        assertThat(stored.get("enabled").asBoolean()).isFalse();
        assertThat(stored.get("modifyIndex").asLong()).isEqualTo(read);
    }
}
