package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AuthenticationTest extends ApiTestBase {

    @ParameterizedTest
    @ValueSource(strings = {"/api/v1/sources", "/api/v1/metrics/db_stats", "/api/v1/presets", "/api/v1/nowhere",
            "/actuator/health", "/actuator/prometheus", "/actuator/metrics", "/actuator/info",
            "/actuator/health/liveness/../../metrics"})
    void aRequestWithoutTokenAnswers401ProblemDetails(String path) {
        var refused = api().withToken(null).get(path);

        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.header("WWW-Authenticate")).startsWith("Bearer");
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
        assertThat(refused.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/unauthorized");
    }

    @Test
    void aWrongTokenAnswers401() {
        var refused = api().withToken(TOKEN + "x").get("/api/v1/sources");

        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.header("WWW-Authenticate")).contains("invalid_token");
    }

    @Test
    void aWrongTokenChangesNothing() {
        var refused = api().withToken("not-the-token").send("DELETE", "/api/v1/presets/basic", null);

        assertThat(refused.status()).isEqualTo(401);
        assertThat(api().get("/api/v1/presets/basic").status()).isEqualTo(200);
    }

    @Test
    void livenessAndReadinessArePublicWithoutDetails() {
        var liveness = api().withToken(null).get("/actuator/health/liveness");
        var readiness = api().withToken(null).get("/actuator/health/readiness");

        assertThat(liveness.status()).isEqualTo(200);
        assertThat(readiness.status()).isEqualTo(200);
        assertThat(liveness.json().get("status").asString()).isEqualTo("UP");
        assertThat(liveness.json().has("components")).isFalse();
    }

    @Test
    void healthShowsDetailsToAuthenticatedCallers() {
        // The sources component lists configured sources: without one it has nothing to show.
        assertThat(api().put("/api/v1/sources/health-detail", Map.of("connStr",
                "postgresql://nobody@127.0.0.1:1/none", "enabled", false)).status()).isIn(200, 201);
        var health = api().get("/actuator/health");

        // Sources and sinks never turn the top level DOWN, but other test classes sharing this
        // context may leave it in any state; the details are what matters here.
        assertThat(health.status()).isIn(200, 503);
        assertThat(health.json().get("components").has("diskSpace")).isTrue();
        assertThat(health.json().get("components").has("sources")).isTrue();
        assertThat(health.json().get("components").has("sinks")).isTrue();
    }

    @Test
    void prometheusScrapeWorksWithTheToken() {
        var scrape = api().get("/actuator/prometheus");

        assertThat(scrape.status()).isEqualTo(200);
        assertThat(scrape.body()).contains("jvm_threads_live_threads");
    }

    @Test
    void theOpenApiDescriptionIsPublicAndDeclaresTheBearerScheme() {
        var docs = api().withToken(null).get("/v3/api-docs");

        assertThat(docs.status()).isEqualTo(200);
        var json = docs.json();
        assertThat(json.get("components").get("securitySchemes").get("bearer").get("scheme").asString())
                .isEqualTo("bearer");
        assertThat(json.get("paths").propertyNames()).contains("/api/v1/sources", "/api/v1/sources/{name}",
                "/api/v1/sources/{name}/test", "/api/v1/sources/{name}/status", "/api/v1/metrics",
                "/api/v1/metrics/{name}", "/api/v1/presets", "/api/v1/presets/{name}");
        var delete = json.get("paths").get("/api/v1/metrics/{name}").get("delete").get("responses");
        assertThat(delete.propertyNames()).contains("204", "401", "404", "409");
        assertThat(api().withToken(null).get("/swagger-ui/index.html").status()).isEqualTo(200);
    }
}
