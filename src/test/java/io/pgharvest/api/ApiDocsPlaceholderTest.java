package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The public OpenAPI description shows its texts as written: no placeholder reads the environment. */
class ApiDocsPlaceholderTest extends ApiTestBase {

    @DynamicPropertySource
    static void variableNamedInTheDocs(DynamicPropertyRegistry registry) {
        registry.add("VAR", () -> "value-of-the-process-4711");
    }

    @Test
    void apiDocsDoNotResolvePlaceholders() {
        var docs = new ApiClient(port, null).get("/v3/api-docs");

        assertThat(docs.status()).isEqualTo(200);
        assertThat(docs.body()).contains("${VAR}").doesNotContain("value-of-the-process-4711");
    }
}
