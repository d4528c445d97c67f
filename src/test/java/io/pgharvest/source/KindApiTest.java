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
