package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad input is refused with problem details naming the field, and nothing is stored. */
class InputHandlingTest extends ApiTestBase {

    private static final String SOURCE = "{\"name\":\"input-check\",\"connStr\":\"postgresql://db1/x\",";

    @Test
    void aFractionalIntervalIsRefusedNotTruncatedToZero() {
        var refused = api().send("POST", "/api/v1/sources", SOURCE + "\"metrics\":{\"db_stats\":0.5}}");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("metrics.db_stats");
        assertThat(api().get("/api/v1/sources/input-check").status()).isEqualTo(404);
    }

    /** Issue 26: URL syntax in a host, and options turning off what pgharvest relies on. */
    @Test
    void aConnectionStringThatSmugglesSettingsIsRefusedNamingConnStr() {
        for (String connStr : List.of("host=127.0.0.1/postgres?PGPORT=1&options=-c%20x%3D1&x= dbname=x",
                "host=db1 dbname=x options='-c default_transaction_read_only=off'",
                "postgresql://db1/x?options=--statement-timeout%3D0")) {
            var refused = api().post("/api/v1/sources", Map.of("name", "smuggle", "connStr", connStr));
            assertThat(refused.status()).as(connStr + ": " + refused).isEqualTo(400);
            assertThat(refused.errorFields()).containsExactly("connStr");
        }
        assertThat(api().get("/api/v1/sources/smuggle").status()).isEqualTo(404);
    }

    @Test
    void aKeyGivenTwiceIsRefusedNamingIt() {
        var refused = api().send("POST", "/api/v1/sources",
                SOURCE + "\"metrics\":{\"db_stats\":30,\"db_stats\":60}}");
        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("metrics.db_stats");
        assertThat(refused.body()).contains("more than once");

        var topLevel = api().send("POST", "/api/v1/sources",
                SOURCE + "\"connStr\":\"postgresql://db2/y\"}");
        assertThat(topLevel.status()).as(topLevel.toString()).isEqualTo(400);
        assertThat(topLevel.errorFields()).containsExactly("connStr");
        assertThat(api().get("/api/v1/sources/input-check").status()).isEqualTo(404);
    }

    @Test
    void anIntervalGivenAsTextIsRefusedNotConverted() {
        var refused = api().send("POST", "/api/v1/sources", SOURCE + "\"metrics\":{\"db_stats\":\"30\"}}");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("metrics.db_stats");
        assertThat(api().get("/api/v1/sources/input-check").status()).isEqualTo(404);
    }

    @Test
    void aPathWithMatrixParametersIsRefusedAndTouchesNothing() {
        assertThat(api().post("/api/v1/sources", Map.of("name", "matrix-a", "connStr", "postgresql://db1/x"))
                .status()).isEqualTo(201);

        var refused = api().send("PUT", "/api/v1/sources/matrix-a;b",
                "{\"connStr\":\"postgresql://db9/other\"}");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("path");
        assertThat(api().get("/api/v1/sources/matrix-a").body()).contains("db1").doesNotContain("db9");
        assertThat(api().send("DELETE", "/api/v1/sources/matrix-a;x", null).status()).isEqualTo(400);
        assertThat(api().get("/api/v1/sources/matrix-a").status()).isEqualTo(200);
    }

    @Test
    void anIntervalBeyondTheIntegerRangeIsOutOfRangeNotInvalidJson() {
        var refused = api().send("POST", "/api/v1/sources", SOURCE + "\"metrics\":{\"db_stats\":2147483648}}");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("metrics.db_stats");
        assertThat(refused.body()).contains("out of range").doesNotContain("not valid JSON");
    }

    @Test
    void anArrayWhereAnObjectBelongsSaysSo() {
        var refused = api().send("POST", "/api/v1/sources", "[]");

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("body");
        assertThat(refused.body()).contains("expected a JSON object").doesNotContain("not valid JSON");
    }

    @Test
    void aLongTagValueIsRefusedNamingTheTag() {
        var refused = api().post("/api/v1/sources", Map.of("name", "input-tag", "connStr", "postgresql://db1/x",
                "tags", Map.of("team", "x".repeat(300))));

        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.errorFields()).containsExactly("tags.team");
    }

    @Test
    void aBodyOverTheLimitIsRefusedWith413WhileItIsRead() throws Exception {
        String huge = SOURCE + "\"tags\":{\"big\":\"" + "x".repeat(10 * 1024 * 1024) + "\"}}";
        var declared = api().send("POST", "/api/v1/sources", huge);
        assertThat(declared.status()).isEqualTo(413);
        assertThat(declared.json().get("type").asString()).endsWith("/too-large");

        // Without a Content-Length (chunked), the limit is enforced while reading. (Just over the
        // limit: Tomcat then reads the rest of the body, and the client sees the answer.)
        byte[] bytes = (SOURCE + "\"tags\":{\"big\":\"" + "x".repeat(1_200_000) + "\"}}").getBytes(StandardCharsets.UTF_8);
        var chunked = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + port + "/api/v1/sources"))
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(bytes))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(413);
        assertThat(chunked.body()).contains("too-large");
        assertThat(api().get("/api/v1/sources/input-check").status()).isEqualTo(404);
    }

    @Test
    void apiAnswersCarrySecurityHeaders() {
        var answer = api().get("/api/v1/sources");

        assertThat(answer.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(answer.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        assertThat(answer.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(answer.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(
                csp -> assertThat(csp).contains("default-src 'none'"));
        var unauthorized = api().withToken(null).get("/api/v1/sources");
        assertThat(unauthorized.status()).isEqualTo(401);
        assertThat(unauthorized.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    }
}
