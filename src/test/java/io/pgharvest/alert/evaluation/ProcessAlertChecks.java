package io.pgharvest.alert.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.alert.notify.dispatch.TestWebhook;
import io.pgharvest.api.ApiClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import tools.jackson.databind.JsonNode;

/**
 * What the process tests of one rule ask of a running pgharvest and of the webhook it notifies;
 * the rule fires on a session idle in transaction for over a second.
 */
record ProcessAlertChecks(String rule, Duration patience) {

    /** Creates the webhook receiver "hook", the rule (for one source) and the source collecting backends every second. */
    void watchIdleTransactions(ApiClient api, String hookUrl, String source, String connStr) {
        created(api.post("/api/v1/alert-receivers", Map.of("name", "hook", "type", "webhook", "url", hookUrl)));
        created(api.post("/api/v1/alert-rules", Map.of("name", rule, "metric", "backends",
                "condition", "longest_idle_in_transaction_s > params.max_s", "params", Map.of("max_s", 1),
                "for", "1s", "summary", "idle on {{ source }}", "sources", Map.of("names", List.of(source)))));
        created(api.post("/api/v1/sources", Map.of("name", source, "connStr", connStr, "metrics", Map.of("backends", 1))));
    }

    /** The rule's alert as the API lists it once it fires. */
    JsonNode awaitFiring(ApiClient api) {
        return Awaitility.await().atMost(patience).pollInterval(Duration.ofMillis(200))
                .until(() -> api.get("/api/v1/alerts").json().valueStream()
                        .filter(alert -> alert.get("alertname").asString().equals(rule)
                                && alert.get("state").asString().equals("firing"))
                        .findFirst().orElse(null), alert -> alert != null);
    }

    /** The rule's notifications of {@code status} ("firing", "resolved") the webhook received. */
    List<TestWebhook.Received> notifications(TestWebhook hook, String status) {
        return hook.received().stream().filter(r -> r.json().get("status").asString().equals(status)
                && r.json().at("/labels/alertname").asString().equals(rule)).toList();
    }

    private static void created(ApiClient.Response response) {
        assertThat(response.status()).as(response.body()).isEqualTo(201);
    }
}
