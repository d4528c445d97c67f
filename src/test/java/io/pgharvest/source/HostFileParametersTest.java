package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The API refuses connection parameters that make the collector read files on its own host. */
class HostFileParametersTest extends ApiTestBase {

    @ParameterizedTest
    @ValueSource(strings = {"passfile=/etc/passwd", "sslkey=/root/.ssh/id_rsa", "sslcert=/etc/ssl/x.crt",
            "sslrootcert=/etc/ssl/ca.crt", "sslcrl=/etc/ssl/crl.pem", "service=prod"})
    void aParameterNamingAHostFileIsRefusedNamingItAndChangesNothing(String parameter) {
        String name = "hf-" + parameter.substring(0, parameter.indexOf('=')).replace('_', '-');
        String connStr = "host=db.example dbname=x user=u " + parameter;

        var created = api().post("/api/v1/sources", Map.of("name", name, "connStr", connStr));
        var replaced = api().put("/api/v1/sources/" + name, Map.of("connStr", connStr));

        for (var refused : java.util.List.of(created, replaced)) {
            assertThat(refused.status()).isEqualTo(400);
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
}
