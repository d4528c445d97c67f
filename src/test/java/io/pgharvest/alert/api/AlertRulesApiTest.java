package io.pgharvest.alert.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.ApiTestBase;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Alert rules over the API: bad input gets problem details naming the field (a CEL error with its
 * position) and saves nothing; create, read, replace and delete answer like the other lists,
 * including a blocking list; a built-in rule can be overridden and switched off, not deleted.
 */
class AlertRulesApiTest extends ApiTestBase {

    private static Map<String, Object> rule(String name, String condition) {
        var rule = new HashMap<String, Object>();
        rule.put("name", name);
        rule.put("metric", "backends");
        rule.put("condition", condition);
        rule.put("for", "1s");
        rule.put("severity", "warning");
        rule.put("summary", "{{ value }} s on {{ source }}");
        rule.put("params", Map.of("max_s", 30));
        return rule;
    }

    @Test
    void badRulesAreProblemsNamingTheFieldAndNothingIsSaved() {
        assertRefused(rule("bad-syntax", "longest_tx_seconds >"), "condition", "line 1, column");
        assertRefused(rule("bad-column", "oldest_xact_s > 300.0"), "condition", "unknown column 'oldest_xact_s'");
        var unknownMetric = rule("bad-metric", "total > 1");
        unknownMetric.put("metric", "no_such_metric");
        assertRefused(unknownMetric, "metric", "no_such_metric");
        assertRefused(rule("bad-cost", "source.tags.all(a, source.tags.all(b, source.tags.all(c, a == b)))"),
                "condition", "cost");
        var badTemplate = rule("bad-template", "total > 1");
        badTemplate.put("description", "held by {{ blocker_pid }}");
        assertRefused(badTemplate, "description", "blocker_pid");

        var many = rule("bad-many", "total > params.nope");
        many.put("for", "soon");
        many.put("severity", "page");
        ApiClient.Response answer = api().post("/api/v1/alert-rules", many);
        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.errorFields()).containsExactlyInAnyOrder("for", "severity", "condition");
        assertThat(api().get("/api/v1/alert-rules/bad-many").status()).isEqualTo(404);

        assertThat(api().post("/api/v1/alert-rules", Map.of("name", "bad-unknown-field", "metric", "backends",
                "condition", "total > 1", "threshold", 3)).errorFields()).containsExactly("threshold");
    }

    @Test
    void aDraftsTestAndAnUnknownSourcesCheckUpAreProblemsAndSaveNothing() {
        var draft = rule("bad-draft", "longest_tx_seconds >");
        draft.put("for", "soon");
        ApiClient.Response answer = api().post("/api/v1/alert-rules/test", draft);
        assertThat(answer.status()).as(answer.body()).isEqualTo(400);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(answer.errorFields()).containsExactlyInAnyOrder("condition", "for");
        assertThat(api().get("/api/v1/alert-rules/bad-draft").status()).isEqualTo(404);

        ApiClient.Response unknown = api().get("/api/v1/sources/no-such-source/alert-checks");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.header("Content-Type")).startsWith("application/problem+json");
        assertThat(unknown.json().get("detail").asString()).contains("no-such-source");
    }

    private void assertRefused(Map<String, Object> rule, String field, String message) {
        ApiClient.Response answer = api().post("/api/v1/alert-rules", rule);
        assertThat(answer.status()).as(answer.body()).isEqualTo(400);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(answer.errorFields()).as(answer.body()).containsExactly(field);
        assertThat(answer.json().at("/errors/0/message").asString()).contains(message);
        assertThat(api().get("/api/v1/alert-rules/" + rule.get("name")).status()).isEqualTo(404);
    }

    @Test
    void rulesAreCreatedReadReplacedAndDeletedAndTheListIsABlockingQuery() throws Exception {
        ApiClient.Response before = api().get("/api/v1/alert-rules");
        assertThat(before.json().valueStream().map(r -> r.get("name").asString()))
                .contains("PostgresSourceDown", "PostgresLockWait");
        CompletableFuture<ApiClient.Response> waiting = api().getAsync("/api/v1/alert-rules?wait=30s&index="
                + before.index());

        ApiClient.Response created = api().post("/api/v1/alert-rules", rule("crud-rule", "longest_tx_seconds > params.max_s"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.header("Location")).isEqualTo("/api/v1/alert-rules/crud-rule");
        assertThat(created.json().get("origin").asString()).isEqualTo("own");
        assertThat(created.json().get("for").asString()).isEqualTo("1s");
        ApiClient.Response woken = waiting.get(10, TimeUnit.SECONDS);
        assertThat(woken.index()).isGreaterThan(before.index());
        assertThat(woken.body()).contains("crud-rule");
        assertThat(api().post("/api/v1/alert-rules", rule("crud-rule", "total > 1")).status()).isEqualTo(409);

        var replaced = rule("crud-rule", "total > params.max_s");
        replaced.put("for", "90s");
        ApiClient.Response put = api().put("/api/v1/alert-rules/crud-rule", replaced);
        assertThat(put.status()).isEqualTo(200);
        JsonNode read = api().get("/api/v1/alert-rules/crud-rule").json();
        assertThat(read.get("condition").asString()).isEqualTo("total > params.max_s");
        assertThat(read.get("for").asString()).isEqualTo("90s");
        assertThat(api().delete("/api/v1/alert-rules/crud-rule").status()).isEqualTo(204);
        assertThat(api().get("/api/v1/alert-rules/crud-rule").status()).isEqualTo(404);
        assertThat(api().delete("/api/v1/alert-rules/crud-rule").status()).isEqualTo(404);
    }

    @Test
    void aBuiltInRuleIsOverriddenAndSwitchedOffAndComesBackWhenTheOverrideIsDeleted() {
        assertThat(api().delete("/api/v1/alert-rules/PostgresSequenceNearMax").status()).isEqualTo(409);
        JsonNode builtIn = api().get("/api/v1/alert-rules/PostgresSequenceNearMax").json();
        assertThat(builtIn.get("origin").asString()).isEqualTo("built-in");
        var off = new HashMap<String, Object>(ApiClient.JSON.convertValue(builtIn, Map.class));
        off.keySet().removeAll(List.of("origin", "modifyIndex", "problems"));
        off.put("enabled", false);
        ApiClient.Response overridden = api().put("/api/v1/alert-rules/PostgresSequenceNearMax", off);
        assertThat(overridden.status()).as(overridden.body()).isEqualTo(200);
        assertThat(overridden.json().get("origin").asString()).isEqualTo("override");
        assertThat(overridden.json().get("enabled").asBoolean()).isFalse();
        assertThat(api().delete("/api/v1/alert-rules/PostgresSequenceNearMax").status()).isEqualTo(204);
        JsonNode back = api().get("/api/v1/alert-rules/PostgresSequenceNearMax").json();
        assertThat(back.get("origin").asString()).isEqualTo("built-in");
        assertThat(back.get("enabled").asBoolean()).isTrue();
    }

    @Test
    void ruleWritesTakeCasAndAStaleOneChangesNothing() {
        ApiClient.Response created = api().put("/api/v1/alert-rules/cas-rule?cas=0", rule("cas-rule", "total > 1"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        long read = created.json().get("modifyIndex").asLong();
        assertThat(read).isPositive();
        // cas=0 means "only if it does not exist yet"
        ApiClient.Response again = api().put("/api/v1/alert-rules/cas-rule?cas=0", rule("cas-rule", "total > 2"));
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("type").asString()).endsWith("/stale-index");
        assertThat(again.json().get("modifyIndex").asLong()).isEqualTo(read);

        ApiClient.Response replaced = api().put("/api/v1/alert-rules/cas-rule?cas=" + read, rule("cas-rule", "total > 3"));
        assertThat(replaced.status()).as(replaced.body()).isEqualTo(200);
        long now = replaced.json().get("modifyIndex").asLong();
        assertThat(now).isGreaterThan(read);
        // a writer holding the old index is refused, on replace and on delete, and nothing changes
        ApiClient.Response stale = api().put("/api/v1/alert-rules/cas-rule?cas=" + read, rule("cas-rule", "total > 4"));
        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.json().get("modifyIndex").asLong()).isEqualTo(now);
        assertThat(stale.json().get("expectedModifyIndex").asLong()).isEqualTo(read);
        assertThat(api().delete("/api/v1/alert-rules/cas-rule?cas=" + read).status()).isEqualTo(409);
        assertThat(api().get("/api/v1/alert-rules/cas-rule").json().get("condition").asString()).isEqualTo("total > 3");

        for (String bad : List.of("-1", "soon")) {
            ApiClient.Response refused = api().put("/api/v1/alert-rules/cas-rule?cas=" + bad, rule("cas-rule", "total > 5"));
            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.json().get("type").asString()).endsWith("/bad-parameter");
            assertThat(refused.errorFields()).containsExactly("cas");
            assertThat(api().delete("/api/v1/alert-rules/cas-rule?cas=" + bad).errorFields()).containsExactly("cas");
        }
        assertThat(api().get("/api/v1/alert-rules/cas-rule").json().get("condition").asString()).isEqualTo("total > 3");

        // a built-in rule not overridden is at 0: its first override may be written with cas=0
        JsonNode builtIn = api().get("/api/v1/alert-rules/PostgresDeadlocks").json();
        assertThat(builtIn.get("modifyIndex").asLong()).isZero();
        var off = new HashMap<String, Object>(ApiClient.JSON.convertValue(builtIn, Map.class));
        off.keySet().removeAll(List.of("origin", "modifyIndex", "problems"));
        off.put("enabled", false);
        ApiClient.Response overridden = api().put("/api/v1/alert-rules/PostgresDeadlocks?cas=0", off);
        assertThat(overridden.status()).as(overridden.body()).isEqualTo(200);
        assertThat(api().delete("/api/v1/alert-rules/PostgresDeadlocks?cas=0").status()).isEqualTo(409);
        assertThat(api().delete("/api/v1/alert-rules/PostgresDeadlocks?cas="
                + overridden.json().get("modifyIndex").asLong()).status()).isEqualTo(204);
        assertThat(api().delete("/api/v1/alert-rules/cas-rule?cas=" + now).status()).isEqualTo(204);
    }
}
