package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProblemDetailsTest extends ApiTestBase {

    @Test
    void malformedJsonAnswers400NamingTheBody() {
        var refused = api().send("POST", "/api/v1/sources", "{\"name\": \"x\", \"connStr\": ");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/malformed-request");
        assertThat(refused.errorFields()).containsExactly("body");
    }

    @Test
    void anUnknownPropertyIsRefusedNamingIt() {
        var refused = api().send("POST", "/api/v1/sources",
                "{\"name\": \"x\", \"connStr\": \"postgresql://db/x\", \"presets\": \"basic\"}");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("presets");
        assertThat(api().get("/api/v1/sources/x").status()).isEqualTo(404);
    }

    @Test
    void aMistypedPropertyIsRefusedNamingIt() {
        var refused = api().send("POST", "/api/v1/presets", "{\"name\": \"p\", \"metrics\": {\"db_stats\": \"often\"}}");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("metrics.db_stats");
    }

    @Test
    void aMissingBodyAnswers400() {
        var refused = api().send("POST", "/api/v1/metrics", null);

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("body");
    }

    @Test
    void aWrongMethodAnswers405ProblemDetails() {
        var refused = api().send("PATCH", "/api/v1/sources", "{}");

        assertThat(refused.status()).isEqualTo(405);
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
        assertThat(refused.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/method-not-allowed");
        assertThat(refused.header("Allow")).contains("GET").contains("POST");
    }

    @Test
    void anUnknownPathAnswers404ProblemDetails() {
        var missing = api().get("/api/v1/nothing-here");

        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/not-found");
    }

    @Test
    void badBlockingQueryParametersAnswer400NamingThem() {
        var refused = api().get("/api/v1/sources?index=soon&wait=forever");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/bad-parameter");
        assertThat(refused.errorFields()).containsExactlyInAnyOrder("index", "wait");
        assertThat(api().get("/api/v1/metrics?index=-1").errorFields()).containsExactly("index");
        assertThat(api().get("/api/v1/presets?index=1&wait=10").errorFields()).containsExactly("wait");
    }

    @Test
    void errorsOutsideControllersAreProblemDetailsToo() {
        var direct = api().get("/error");

        assertThat(direct.header("Content-Type")).startsWith("application/problem+json");
        assertThat(direct.json().get("type").asString()).startsWith("https://pgharvest.io/problems/");
    }
}
