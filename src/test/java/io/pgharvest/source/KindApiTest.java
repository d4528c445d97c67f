package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.ApiTestBase;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** GET /api/v1/kinds and the OpenAPI document list the kinds the registry has, in the same order. */
class KindApiTest extends ApiTestBase {

    @Test
    void kindsComeFromTheRegistryWithWhatEachDoes() {
        var response = new ApiClient(port, TOKEN).get("/api/v1/kinds");

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().valueStream().map(k -> k.get("kind").asString() + " collected="
                + k.get("collected").asBoolean() + " discovers=" + k.get("discovers").asBoolean()))
                .containsExactly(
                        "postgres collected=true discovers=false",
                        "postgres-continuous-discovery collected=true discovers=true",
                        "pgbouncer collected=true discovers=false",
                        "pgpool collected=true discovers=false",
                        "patroni collected=false discovers=true");
    }

    @Test
    void eachKindSaysHowItsConnectionStringIsWrittenAndWhatItsDiscoveryAddsWhateverTheSelection() {
        var kinds = new ApiClient(port, TOKEN).get("/api/v1/kinds").json();
        java.util.function.Function<String, JsonNode> kind = label -> kinds.valueStream()
                .filter(k -> k.get("kind").asString().equals(label)).findFirst().orElseThrow();

        assertThat(kind.apply("postgres").get("connStrExample").asString()).startsWith("postgresql://");
        assertThat(kind.apply("postgres").get("connStrHint").asString()).contains("libpq key=value");
        assertThat(kind.apply("postgres").get("addedMetrics").valueStream()).isEmpty();
        assertThat(kind.apply("postgres-continuous-discovery").get("connStrHint").asString()).contains("databases");
        assertThat(kind.apply("patroni").get("connStrExample").asString()).startsWith("etcd://");
        assertThat(kind.apply("patroni").get("connStrHint").asString()).contains("namespace");
        assertThat(kind.apply("patroni").get("addedMetrics").valueStream().map(JsonNode::asString))
                .containsExactly("patroni_rest_api");
    }

    @Test
    void theOpenApiDocumentAllowsExactlyTheRegistrysKinds() {
        var client = new ApiClient(port, TOKEN);
        var kinds = client.get("/api/v1/kinds").json().valueStream().map(k -> k.get("kind").asString()).toList();

        JsonNode kind = client.get("/v3/api-docs").json()
                .get("components").get("schemas").get("SourceInput").get("properties").get("kind");

        assertThat(kind.get("enum").valueStream().map(JsonNode::asString).toList()).isEqualTo(kinds);
    }

    @Test
    void listingKindsNeedsTheToken() {
        assertThat(new ApiClient(port, null).get("/api/v1/kinds").status()).isEqualTo(401);
    }
}
