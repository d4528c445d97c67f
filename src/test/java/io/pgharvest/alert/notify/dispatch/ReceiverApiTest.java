package io.pgharvest.alert.notify.dispatch;


import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.api.ApiClient.Response;
import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The receivers' and silences' API in the shared application: receivers as data with their
 * secrets masked, bad input as problems naming the field with nothing saved, and a transition
 * handed to the application's {@link io.pgharvest.alert.AlertNotifications} reaching a receiver
 * created through the API, or recorded as silenced.
 */
class ReceiverApiTest extends ApiTestBase {

    @Autowired
    OutboxNotifications notifications;

    private final Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    @Test
    void receiverTypesComeFromTheRegistryWithTheirOptionsAndSecrets() {
        JsonNode types = api().get("/api/v1/alert-receiver-types").json();
        assertThat(types.valueStream().map(t -> t.get("type").asString()))
                .containsExactly("alertmanager", "webhook", "slack", "email");
        JsonNode email = types.valueStream().filter(t -> t.get("type").asString().equals("email")).findFirst().orElseThrow();
        assertThat(email.get("options").valueStream().filter(o -> o.get("secret").asBoolean())
                .map(o -> o.get("name").asString())).containsExactly("password");
        assertThat(email.get("options").valueStream().map(o -> o.get("name").asString())).contains("startTls", "to");
    }

    @Test
    void aWebhookCreatedThroughTheApiGetsTransitionsAndNeverShowsItsSecrets() {
        try (var webhook = new TestWebhook()) {
            String url = webhook.url("/hook/token-abc123");
            Response created = api().post("/api/v1/alert-receivers", Map.of("name", "api-hook", "type", "webhook",
                    "url", url, "secret", "0123456789abcdef-secret",
                    "route", Map.of("matchers", List.of(Map.of("name", "source", "value", "api-src-.*", "isRegex", true)))));
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            for (Response shown : List.of(created, api().get("/api/v1/alert-receivers/api-hook"),
                    api().get("/api/v1/alert-receivers"))) {
                assertThat(shown.body()).doesNotContain("token-abc123", "0123456789abcdef-secret").contains("********");
            }

            notifications.transition(Transitions.firing("long_query", "api-src-1", "warning", start));
            notifications.transition(Transitions.firing("long_query", "other-src", "warning", start));
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.received().size() == 1);
            assertThat(webhook.received().getFirst().path()).isEqualTo("/hook/token-abc123");

            // The masks sent back with a new route keep the stored URL and secret.
            Response replaced = api().put("/api/v1/alert-receivers/api-hook", Map.of("type", "webhook",
                    "url", "********", "secret", "********", "route", Map.of("severities", List.of("critical"))));
            assertThat(replaced.status()).as(replaced.body()).isEqualTo(200);
            notifications.transition(Transitions.firing("long_query", "other-src", "critical", start));
            await().atMost(Duration.ofSeconds(20)).until(() -> webhook.received().size() == 2);
            assertThat(webhook.received().get(1).header("X-Pgharvest-Signature")).startsWith("sha256=");

            JsonNode outbox = api().get("/api/v1/alert-receivers/api-hook/notifications").json();
            assertThat(outbox.valueStream().map(n -> n.get("status").asString())).containsExactly("delivered", "delivered");
            assertThat(api().delete("/api/v1/alert-receivers/api-hook").status()).isEqualTo(204);
            assertThat(api().get("/api/v1/alert-receivers/api-hook").status()).isEqualTo(404);
        }
    }

    @Test
    void aMaskSentWithAnotherServerIsRefusedAndTheStoredPasswordStays() throws Exception {
        Response created = api().post("/api/v1/alert-receivers", Map.of("name", "api-mail", "type", "email",
                "host", "smtp.example.org", "username", "alerts", "password", "smtp-password-1",
                "from", "pgharvest@example.org", "to", List.of("dba@example.org")));
        assertThat(created.status()).as(created.body()).isEqualTo(201);

        Response redirected = api().put("/api/v1/alert-receivers/api-mail", Map.of("type", "email",
                "host", "smtp.attacker.example", "username", "alerts", "password", "********",
                "from", "pgharvest@example.org", "to", List.of("dba@example.org")));
        assertThat(redirected.status()).isEqualTo(400);
        assertThat(redirected.errorFields()).containsExactly("password");
        assertThat(api().get("/api/v1/alert-receivers/api-mail").json().get("host").asString())
                .isEqualTo("smtp.example.org");
        // The store keeps the password; nothing the API answered ever held it.
        assertThat(Files.readString(DATA_DIR.resolve("alert-receivers.json"))).contains("smtp-password-1");
        assertThat(redirected.body() + created.body()).doesNotContain("smtp-password-1");
        api().delete("/api/v1/alert-receivers/api-mail");
    }

    @Test
    void badReceiversAreProblemsNamingEachFieldAndNothingIsSaved() {
        Response unknownType = api().post("/api/v1/alert-receivers", Map.of("name", "api-bad1", "type", "pagerduty"));
        assertThat(unknownType.status()).isEqualTo(400);
        assertThat(unknownType.header("Content-Type")).startsWith("application/problem+json");
        assertThat(unknownType.errorFields()).containsExactly("type");

        Response unknownOption = api().post("/api/v1/alert-receivers", Map.of("name", "api-bad2", "type", "slack",
                "url", "https://hooks.example.org/services/secret-token", "channel", "#dba"));
        assertThat(unknownOption.status()).isEqualTo(400);
        assertThat(unknownOption.errorFields()).containsExactly("channel");
        assertThat(unknownOption.body()).doesNotContain("secret-token");

        Response badValues = api().post("/api/v1/alert-receivers", Map.of("name", "Bad Name", "type", "alertmanager",
                "urls", List.of(), "route", Map.of("severities", List.of("page"))));
        assertThat(badValues.status()).isEqualTo(400);
        assertThat(badValues.errorFields()).containsExactlyInAnyOrder("name", "urls", "route.severities[0]");

        Response wrongShape = api().post("/api/v1/alert-receivers", Map.of("name", "api-bad3", "type", "email",
                "host", "smtp", "port", "not a number", "from", "a@example.org", "to", List.of("b@example.org")));
        assertThat(wrongShape.status()).isEqualTo(400);
        assertThat(wrongShape.errorFields()).containsExactly("port");

        JsonNode all = api().get("/api/v1/alert-receivers").json();
        assertThat(all.valueStream().map(r -> r.get("name").asString())).noneMatch(n -> n.startsWith("api-bad")
                || n.equals("Bad Name"));
    }

    @Test
    void silencesAreCreatedListedHonouredAndDeleted() {
        Response invalid = api().post("/api/v1/silences", Map.of("endsAt", start.minusSeconds(60).toString()));
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.errorFields()).contains("matchers", "author", "endsAt");

        try (var webhook = new TestWebhook()) {
            api().post("/api/v1/alert-receivers", Map.of("name", "api-silenced-hook", "type", "webhook",
                    "url", webhook.url("/s"), "route", Map.of("matchers", List.of(Map.of("name", "source",
                            "value", "api-maint")))));
            Response created = api().post("/api/v1/silences", Map.of(
                    "matchers", List.of(Map.of("name", "source", "value", "api-maint")),
                    "endsAt", start.plusSeconds(3600).toString(), "author", "dba <b>", "comment", "upgrade\nwindow"));
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            String id = created.json().get("id").asString();

            JsonNode listed = api().get("/api/v1/silences").json().get("silences");
            assertThat(listed.valueStream().filter(s -> s.get("id").asString().equals(id))).singleElement()
                    .satisfies(s -> {
                        assertThat(s.get("origin").asString()).isEqualTo("pgharvest");
                        assertThat(s.get("state").asString()).isEqualTo("active");
                        assertThat(s.get("author").asString()).isEqualTo("dba <b>");
                    });

            notifications.transition(Transitions.firing("idle_in_transaction", "api-maint", "warning", start));
            await().atMost(Duration.ofSeconds(20)).until(() -> api().get(
                    "/api/v1/alert-receivers/api-silenced-hook/notifications").json().valueStream()
                    .anyMatch(n -> n.get("status").asString().equals("silenced")));
            assertThat(webhook.received()).isEmpty();

            assertThat(api().delete("/api/v1/silences/" + id).status()).isEqualTo(204);
            assertThat(api().delete("/api/v1/silences/" + id).status()).isEqualTo(404);
            api().delete("/api/v1/alert-receivers/api-silenced-hook");
        }
    }
    @Test
    void aRuleFiringOnARealServerReachesTheWebhookOnceAndItsResolutionFollows() throws Exception {
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("notify_tx");
        try (var webhook = new TestWebhook()) {
            assertThat(api().post("/api/v1/alert-receivers", Map.of("name", "api-e2e-hook", "type", "webhook",
                    "url", webhook.url("/e2e"), "route", Map.of("matchers", List.of(Map.of("name", "alertname",
                            "value", "rn-longtx"))))).status()).isEqualTo(201);
            var rule = new java.util.HashMap<String, Object>();
            rule.put("name", "rn-longtx");
            rule.put("metric", "backends");
            rule.put("condition", "longest_tx_seconds > params.max_s");
            rule.put("params", Map.of("max_s", 1));
            rule.put("for", "1s");
            rule.put("severity", "critical");
            rule.put("summary", "{{ source }}: {{ value }}");
            rule.put("sources", Map.of("names", List.of("notify-tx")));
            Response created = api().put("/api/v1/alert-rules/rn-longtx", rule);
            assertThat(created.status()).as(created.body()).isIn(200, 201);
            assertThat(api().post("/api/v1/sources", Map.of("name", "notify-tx", "connStr", pg.connStr("notify_tx"),
                    "metrics", Map.of("backends", 1))).status()).isEqualTo(201);

            try (Connection open = pg.connect("notify_tx"); Statement s = open.createStatement()) {
                open.setAutoCommit(false);
                s.execute("select txid_current()");
                await().atMost(Duration.ofSeconds(40)).until(() -> !webhook.received().isEmpty());
                open.commit();
            }
            await().atMost(Duration.ofSeconds(40)).until(() -> webhook.received().size() >= 2);
            List<JsonNode> sent = webhook.received().stream().map(TestWebhook.Received::json).toList();
            assertThat(sent).extracting(j -> j.get("status").asString()).containsExactly("firing", "resolved");
            assertThat(sent.getFirst().at("/labels/source").asString()).isEqualTo("notify-tx");
            assertThat(sent.getFirst().at("/labels/severity").asString()).isEqualTo("critical");
            assertThat(sent.getFirst().at("/annotations/summary").asString()).startsWith("notify-tx: ");
        } finally {
            api().delete("/api/v1/sources/notify-tx");
            api().delete("/api/v1/alert-rules/rn-longtx");
            api().delete("/api/v1/alert-receivers/api-e2e-hook");
        }
    }
}
