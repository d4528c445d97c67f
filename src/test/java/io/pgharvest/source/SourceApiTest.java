package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.store.ConfigStore;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

class SourceApiTest extends ApiTestBase {

    @Autowired
    ConfigStore store;

    @Test
    void creatingASourceAnswers201WithTheMaskedPasswordAndDefaults() {
        var created = api().post("/api/v1/sources", Map.of("name", "crud-orders",
                "connStr", "postgresql://monitor:secret@db1:5432/orders"));

        assertThat(created.status()).isEqualTo(201);
        assertThat(created.header("Location")).isEqualTo("/api/v1/sources/crud-orders");
        JsonNode body = created.json();
        assertThat(body.get("connStr").asString()).isEqualTo("postgresql://monitor:********@db1:5432/orders");
        assertThat(body.get("kind").asString()).isEqualTo("postgres");
        assertThat(body.get("group").asString()).isEqualTo("default");
        assertThat(body.get("enabled").asBoolean()).isTrue();
        assertThat(body.get("onlyIfPrimary").asBoolean()).isFalse();
        assertThat(body.get("preset").isNull()).isTrue();
        assertThat(body.get("modifyIndex").asLong()).isEqualTo(created.index());
        assertThat(body.has("password")).isFalse();
    }

    @Test
    void aCreatedSourceIsListedAndReadableByName() {
        var created = api().post("/api/v1/sources", Map.of("name", "crud-read",
                "connStr", "host=db2 dbname=app user=monitor password=pw", "preset", "basic",
                "metrics", Map.of("db_stats", 30), "tags", Map.of("env", "prod")));
        assertThat(created.status()).isEqualTo(201);

        var read = api().get("/api/v1/sources/crud-read");
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().get("connStr").asString()).doesNotContain("pw").contains("password=********");
        assertThat(read.json().get("metrics").get("db_stats").asInt()).isEqualTo(30);
        assertThat(read.json().get("tags").get("env").asString()).isEqualTo("prod");

        var list = api().get("/api/v1/sources");
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.index()).isGreaterThanOrEqualTo(created.index());
        assertThat(list.json().valueStream().map(s -> s.get("name").asString())).contains("crud-read");
    }

    @Test
    void creatingADuplicateSourceAnswers409() {
        Map<String, String> source = Map.of("name", "crud-dup", "connStr", "postgresql://db/x");
        assertThat(api().post("/api/v1/sources", source).status()).isEqualTo(201);

        var duplicate = api().post("/api/v1/sources", source);

        assertThat(duplicate.status()).isEqualTo(409);
        assertThat(duplicate.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/duplicate");
        assertThat(duplicate.json().get("detail").asString()).contains("crud-dup");
    }

    @Test
    void replacingWithTheMaskedPasswordKeepsTheStoredPassword() {
        api().post("/api/v1/sources", Map.of("name", "crud-mask", "connStr", "postgresql://u:orig-pw@db/x"));
        JsonNode read = api().get("/api/v1/sources/crud-mask").json();

        var replaced = api().put("/api/v1/sources/crud-mask", Map.of("connStr", read.get("connStr").asString(),
                "group", "eu"));

        assertThat(replaced.status()).isEqualTo(200);
        assertThat(replaced.json().get("group").asString()).isEqualTo("eu");
        String stored = store.snapshot().sources().get("crud-mask").connStr();
        assertThat(ConnectionString.parse(stored).password()).contains("orig-pw");
    }

    @Test
    void theMaskedPasswordIsRefusedWithWeakerTransportProtectionAndNothingChanges() {
        api().post("/api/v1/sources", Map.of("name", "crud-tls", "connStr",
                "postgresql://u:tls-pw@db/x?sslmode=verify-full&gssencmode=require&channel_binding=require"));
        long before = api().get("/api/v1/sources/crud-tls").json().get("modifyIndex").asLong();

        for (String weaker : List.of("sslmode=disable&gssencmode=require&channel_binding=require",
                "sslmode=require&gssencmode=require&channel_binding=require",
                "gssencmode=require&channel_binding=require",
                "sslmode=verify-full&gssencmode=prefer&channel_binding=require",
                "sslmode=verify-full&gssencmode=require&channel_binding=disable")) {
            var refused = api().put("/api/v1/sources/crud-tls", Map.of("connStr", "postgresql://u:********@db/x?" + weaker));
            assertThat(refused.status()).as(weaker).isEqualTo(400);
            assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("connStr");
            assertThat(refused.body()).contains("weaker").doesNotContain("tls-pw");
        }
        var tested = api().post("/api/v1/sources/test", Map.of("name", "crud-tls",
                "connStr", "postgresql://u:********@db/x?sslmode=disable&gssencmode=require&channel_binding=require"));
        assertThat(tested.status()).as("the connection test sends the stored password too").isEqualTo(400);
        assertThat(api().get("/api/v1/sources/crud-tls").json().get("modifyIndex").asLong()).isEqualTo(before);
        assertThat(store.snapshot().sources().get("crud-tls").connStr()).contains("sslmode=verify-full");

        var withPassword = api().put("/api/v1/sources/crud-tls", Map.of("connStr", "postgresql://u@db/x?sslmode=disable",
                "password", "new-pw"));
        assertThat(withPassword.status()).as("a password sent again may go without TLS").isEqualTo(200);
        var stronger = api().put("/api/v1/sources/crud-tls", Map.of("connStr",
                "postgresql://u:********@db/x?sslmode=require"));
        assertThat(stronger.status()).as("raising protection keeps the stored password").isEqualTo(200);
        assertThat(ConnectionString.parse(store.snapshot().sources().get("crud-tls").connStr()).password())
                .contains("new-pw");
    }

    @Test
    void aSeparatePasswordReplacesTheOneInTheConnectionString() {
        api().post("/api/v1/sources", Map.of("name", "crud-pw", "connStr", "postgresql://u@db/x", "password", "p@ss:w/rd"));

        String stored = store.snapshot().sources().get("crud-pw").connStr();

        assertThat(ConnectionString.parse(stored).password()).contains("p@ss:w/rd");
        assertThat(api().get("/api/v1/sources/crud-pw").body()).doesNotContain("p@ss");
    }

    @Test
    void putCreatesAnUnknownSourceAndReplacesAKnownOne() {
        var created = api().put("/api/v1/sources/crud-put", Map.of("connStr", "postgresql://db/x"));
        var replaced = api().put("/api/v1/sources/crud-put", Map.of("connStr", "postgresql://db/x", "enabled", false));

        assertThat(created.status()).isEqualTo(201);
        assertThat(replaced.status()).isEqualTo(200);
        assertThat(replaced.json().get("enabled").asBoolean()).isFalse();
        assertThat(replaced.json().get("modifyIndex").asLong()).isGreaterThan(created.json().get("modifyIndex").asLong());
    }

    @Test
    void replacingWithIdenticalContentKeepsTheModifyIndex() {
        Map<String, Object> source = Map.of("connStr", "postgresql://db/x", "preset", "minimal");
        var first = api().put("/api/v1/sources/crud-same", source);
        var second = api().put("/api/v1/sources/crud-same", source);

        assertThat(second.status()).isEqualTo(200);
        assertThat(second.json().get("modifyIndex").asLong()).isEqualTo(first.json().get("modifyIndex").asLong());
    }

    @Test
    void deletingASourceRemovesIt() {
        api().post("/api/v1/sources", Map.of("name", "crud-del", "connStr", "postgresql://db/x"));

        var deleted = api().delete("/api/v1/sources/crud-del");

        assertThat(deleted.status()).isEqualTo(204);
        assertThat(api().get("/api/v1/sources/crud-del").status()).isEqualTo(404);
        assertThat(api().delete("/api/v1/sources/crud-del").status()).isEqualTo(404);
        assertThat(store.snapshot().sources()).doesNotContainKey("crud-del");
    }

    @Test
    void anUnknownSourceAnswers404ProblemDetails() {
        var missing = api().get("/api/v1/sources/crud-nowhere");

        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.header("Content-Type")).startsWith("application/problem+json");
        assertThat(missing.json().get("type").asString()).isEqualTo("https://pgharvest.io/problems/not-found");
        assertThat(missing.json().get("detail").asString()).isEqualTo("source 'crud-nowhere' does not exist");
    }

    @Test
    void statusReportsTheResolvedSelection() {
        api().post("/api/v1/sources", Map.of("name", "crud-status", "connStr", "postgresql://db/x", "preset", "minimal",
                "metrics", Map.of("db_size", 0, "locks", 15), "standbyPreset", "basic"));

        var status = api().get("/api/v1/sources/crud-status/status");

        assertThat(status.status()).isEqualTo(200);
        JsonNode body = status.json();
        // The engine runs a reaper for it at once; host "db" does not exist, so it never connects.
        assertThat(body.get("state").asString()).isIn("starting", "disconnected");
        assertThat(body.get("runtime").get("connected").asBoolean()).isFalse();
        // the preset's metrics, without db_size (interval 0), plus locks
        var expected = new TreeSet<>(api().get("/api/v1/presets/minimal").json().get("metrics").propertyNames());
        assertThat(expected).contains("db_size").doesNotContain("locks");
        expected.remove("db_size");
        expected.add("locks");
        assertThat(body.get("metrics").propertyNames()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(body.get("metrics").get("locks").asInt()).isEqualTo(15);
        assertThat(body.get("standbyMetrics").get("replication").asInt())
                .isEqualTo(api().get("/api/v1/presets/basic").json().get("metrics").get("replication").asInt());
        assertThat(body.get("modifyIndex").asLong()).isPositive();
        assertThat(api().get("/api/v1/sources/crud-nowhere/status").status()).isEqualTo(404);
    }
}
