package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.TestPostgres;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A source's password leaves the process through no answer and no log line. */
@ExtendWith(OutputCaptureExtension.class)
class SecretsTest extends ApiTestBase {

    private static final String PASSWORD = "Sup3r-S3cret-Pw";

    @Test
    void thePasswordAppearsInNoAnswerAndNoLogLine(CapturedOutput output) {
        TestPostgres postgres = TestPostgres.shared();
        String connStr = "postgresql://postgres:" + PASSWORD + "@" + postgres.host() + ":" + postgres.port() + "/postgres";
        List<ApiClient.Response> answers = new ArrayList<>();

        answers.add(api().post("/api/v1/sources", Map.of("name", "secret-uri", "connStr", connStr)));
        answers.add(api().post("/api/v1/sources", Map.of("name", "secret-kv",
                "connStr", "host=db dbname=x user=u", "password", PASSWORD)));
        answers.add(api().post("/api/v1/sources", Map.of("name", "secret-uri", "connStr", connStr)));
        answers.add(api().post("/api/v1/sources", Map.of("name", "secret-bad", "connStr", connStr, "preset", "nope")));
        answers.add(api().post("/api/v1/sources", Map.of("name", "secret-bad2",
                "connStr", "postgresql://u:" + PASSWORD + "@db:notaport/x")));
        answers.add(api().put("/api/v1/sources/secret-uri", Map.of("connStr",
                api().get("/api/v1/sources/secret-uri").json().get("connStr").asString(), "group", "g2")));
        answers.add(api().get("/api/v1/sources"));
        answers.add(api().get("/api/v1/sources/secret-uri"));
        answers.add(api().get("/api/v1/sources/secret-kv"));
        answers.add(api().get("/api/v1/sources/secret-uri/status"));
        answers.add(api().post("/api/v1/sources/secret-uri/test", ""));
        answers.add(api().send("POST", "/api/v1/sources", "{\"name\": \"x\", \"connStr\": \"" + connStr + "\", "));
        answers.add(api().delete("/api/v1/sources/secret-kv"));

        assertThat(answers.get(0).status()).isEqualTo(201);
        assertThat(answers.get(10).json().get("reachable").asBoolean()).isTrue();
        assertThat(answers).allSatisfy(answer -> assertThat(answer.body()).doesNotContain(PASSWORD));
        assertThat(output.getAll()).doesNotContain(PASSWORD);
        assertThat(output.getAll()).contains("source 'secret-uri' created");
    }

    @Test
    void theMaskKeepsTheStoredPasswordOnlyForTheSameHostPortUserAndDatabase() {
        api().post("/api/v1/sources", Map.of("name", "secret-mask", "connStr",
                "postgresql://monitor:" + PASSWORD + "@db1:5432/orders"));
        String masked = "postgresql://monitor:********@db1:5432/orders";

        var sameDestination = api().put("/api/v1/sources/secret-mask", Map.of("connStr", masked, "group", "kept"));
        assertThat(sameDestination.status()).isEqualTo(200);

        for (String redirected : List.of("postgresql://monitor:********@attacker:5432/orders",
                "postgresql://monitor:********@db1:6543/orders", "postgresql://other:********@db1:5432/orders",
                "postgresql://monitor:********@db1:5432/elsewhere")) {
            var refused = api().put("/api/v1/sources/secret-mask", Map.of("connStr", redirected, "group", "moved"));
            assertThat(refused.status()).as(redirected).isEqualTo(400);
            assertThat(refused.errorFields()).as(redirected).containsExactly("connStr");
        }
        var stored = api().get("/api/v1/sources/secret-mask").json();
        assertThat(stored.get("connStr").asString()).isEqualTo(masked);
        assertThat(stored.get("group").asString()).isEqualTo("kept");
    }
}
