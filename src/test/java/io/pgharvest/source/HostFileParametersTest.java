package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The API refuses connection parameters that make the collector read files on its own host, on
 * every path a request can take: create, replace, the draft connection test, the YAML import and a
 * Patroni source's member parameters; a request with other bad fields hears of all of them at once.
 */
class HostFileParametersTest extends ApiTestBase {

    @ParameterizedTest
    @ValueSource(strings = {"passfile=/etc/passwd", "sslkey=/root/.ssh/id_rsa", "sslcert=/etc/ssl/x.crt",
            "sslrootcert=/etc/ssl/ca.crt", "sslcrl=/etc/ssl/crl.pem", "service=prod"})
    void aParameterNamingAHostFileIsRefusedNamingItAndChangesNothing(String parameter) {
        String name = "hf-" + parameter.substring(0, parameter.indexOf('=')).replace('_', '-');
        String connStr = "host=db.example dbname=x user=u " + parameter;

        var created = api().post("/api/v1/sources", Map.of("name", name, "connStr", connStr));
        var replaced = api().put("/api/v1/sources/" + name, Map.of("connStr", connStr));
        // the draft connection test would open the file at once, without storing anything
        var tested = api().post("/api/v1/sources/test", Map.of("name", name, "connStr", connStr));

        for (var refused : java.util.List.of(created, replaced, tested)) {
            assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
            assertThat(refused.errorFields()).containsExactly("connStr");
            assertThat(refused.body()).contains(parameter.substring(0, parameter.indexOf('=')));
        }
        assertThat(api().get("/api/v1/sources/" + name).status()).isEqualTo(404);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sslrootcert=system", "sslmode=require"})
    void parametersThatReadNoHostFileAreAccepted(String parameter) {
        String name = "hf-ok-" + parameter.substring(0, parameter.indexOf('='));
        var created = api().post("/api/v1/sources", Map.of("name", name,
                "connStr", "host=db.example dbname=x user=u " + parameter));
        assertThat(created.status()).isEqualTo(201);
    }

    @Test
    void aRequestWithOtherBadFieldsHearsOfEveryOneOfThemAtOnce() {
        Map<String, Object> body = Map.of("name", "hf-many", "connStr", "host=db.example dbname=x passfile=/etc/passwd",
                "preset", "no-such-preset");

        var created = api().post("/api/v1/sources", body);
        var replaced = api().put("/api/v1/sources/hf-many", body);
        var tested = api().post("/api/v1/sources/test", Map.of("connStr", "host=db.example passfile=/etc/passwd",
                "kind", "no-such-kind"));

        for (var refused : java.util.List.of(created, replaced)) {
            assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
            assertThat(refused.errorFields()).as(refused.toString()).containsExactlyInAnyOrder("connStr", "preset");
        }
        assertThat(tested.status()).as(tested.toString()).isEqualTo(400);
        assertThat(tested.errorFields()).as(tested.toString()).containsExactlyInAnyOrder("connStr", "kind");
        assertThat(api().get("/api/v1/sources/hf-many").status()).isEqualTo(404);
    }

    @Test
    void aPatroniSourceMayNotGiveItsMembersAHostFile() {
        String connStr = "etcd://127.0.0.1:2379/service/hf?user=monitor&sslkey=%2Froot%2Fclient.key";

        var created = api().post("/api/v1/sources", Map.of("name", "hf-patroni", "kind", "patroni", "connStr", connStr));

        assertThat(created.status()).as(created.toString()).isEqualTo(400);
        assertThat(created.errorFields()).containsExactly("connStr");
        assertThat(created.body()).contains("sslkey");
        assertThat(api().get("/api/v1/sources/hf-patroni").status()).isEqualTo(404);
        // The same address without the file is accepted: the refusal is about the file alone.
        var plain = api().post("/api/v1/sources", Map.of("name", "hf-patroni-ok", "kind", "patroni",
                "connStr", "etcd://127.0.0.1:2379/service/hf?user=monitor&sslmode=disable", "enabled", false));
        assertThat(plain.status()).as(plain.toString()).isEqualTo(201);
    }

    @Test
    void theYamlImportThroughTheApiRefusesAHostFileAndImportsNothing() {
        String yaml = """
                - name: hf_import_a
                  kind: postgres
                  conn_str: host=db1.example dbname=orders user=monitor sslcert=/etc/ssl/client.crt sslkey=/etc/ssl/client.key
                  preset_metrics: no_such_preset
                  is_enabled: true
                - name: hf_import_b
                  kind: postgres
                  conn_str: postgresql://monitor@db2.example/orders
                  preset_metrics: basic
                  is_enabled: true
                """;

        var refused = api().send("POST", "/api/v1/import", "application/yaml", yaml);

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorFields()).as(refused.toString())
                .contains("sources[hf_import_a].conn_str", "sources[hf_import_a].preset_metrics");
        assertThat(refused.body()).contains("sslcert, sslkey");
        assertThat(api().get("/api/v1/sources/hf_import_a").status()).isEqualTo(404);
        assertThat(api().get("/api/v1/sources/hf_import_b").status()).isEqualTo(404);
    }
}
