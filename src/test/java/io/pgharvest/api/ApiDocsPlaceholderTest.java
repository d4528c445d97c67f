package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The public OpenAPI description shows its texts as written (no placeholder reads the environment),
 * and parameters bound as one record ({@code @ParameterObject}) each with its own description.
 */
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

    @Test
    void theBigViewsDocumentTheirPagingParameters() {
        var tables = ApiClient.JSON.readTree(new ApiClient(port, null).get("/v3/api-docs").body())
                .get("paths").get("/api/v1/sources/{name}/tables").get("get").get("parameters");
        var names = new java.util.ArrayList<String>();
        tables.forEach(p -> names.add(p.get("name").asString() + ": " + p.path("description").asString()));
        assertThat(names).anySatisfy(p -> assertThat(p).startsWith("sort: A field of the rows"))
                .anySatisfy(p -> assertThat(p).startsWith("order: asc or desc"))
                .anySatisfy(p -> assertThat(p).startsWith("limit: The most rows answered, 1 to 1000"))
                .anySatisfy(p -> assertThat(p).startsWith("offset: How many of the sorted rows to skip"));
    }
}
