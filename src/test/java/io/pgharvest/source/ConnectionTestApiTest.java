package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.TestPostgres;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ConnectionTestApiTest extends ApiTestBase {

    /** pgharvest.connect-timeout of the test application (see ApiTestBase). */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    @Test
    void testingAReachableSourceReportsTheServerVersion() {
        TestPostgres postgres = TestPostgres.shared();
        api().post("/api/v1/sources", Map.of("name", "ct-up", "connStr", postgres.connStr("postgres")));

        var tested = api().post("/api/v1/sources/ct-up/test", "");

        assertThat(tested.status()).isEqualTo(200);
        JsonNode result = tested.json();
        assertThat(result.get("reachable").asBoolean()).isTrue();
        assertThat(result.get("serverVersionNum").asInt()).isEqualTo(postgres.serverVersionNum());
        assertThat(result.get("serverVersion").asString()).startsWith(postgres.majorVersion() + ".");
        assertThat(result.get("inRecovery").asBoolean()).isFalse();
        assertThat(result.get("latencyMillis").asLong()).isNotNegative();
        assertThat(result.get("error").isNull()).isTrue();
    }

    @Test
    void testingAClosedPortReportsTheErrorWithinTheConnectTimeout() throws Exception {
        int closedPort;
        try (var socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        api().post("/api/v1/sources", Map.of("name", "ct-down",
                "connStr", "postgresql://monitor:pw@127.0.0.1:" + closedPort + "/postgres"));
        long started = System.nanoTime();

        var tested = api().post("/api/v1/sources/ct-down/test", "");

        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        assertThat(tested.status()).isEqualTo(200);
        JsonNode result = tested.json();
        assertThat(result.get("reachable").asBoolean()).isFalse();
        assertThat(result.get("error").asString()).isNotBlank().doesNotContain("pw");
        assertThat(result.get("serverVersion").isNull()).isTrue();
        assertThat(elapsed).isLessThan(CONNECT_TIMEOUT);
    }

    /**
     * Secrets are kept out of messages by structure, not by replacing the password's text: with a
     * one-character password a text replacement rewrote every such letter of the driver's message.
     */
    @Test
    void aOneCharacterPasswordLeavesEveryWordOfAConnectionErrorIntact() throws Exception {
        TestPostgres postgres = TestPostgres.shared();
        postgres.execute("postgres", "DROP ROLE IF EXISTS ct_nologin; CREATE ROLE ct_nologin NOLOGIN");
        int closedPort;
        try (var socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        api().post("/api/v1/sources", Map.of("name", "ct-refused", "connStr", "postgresql://ct_nologin:e@"
                + postgres.host() + ":" + postgres.port() + "/postgres"));
        api().post("/api/v1/sources", Map.of("name", "ct-gone",
                "connStr", "postgresql://monitor:e@127.0.0.1:" + closedPort + "/postgres"));

        String refused = api().post("/api/v1/sources/ct-refused/test", "").json().get("error").asString();
        String gone = api().post("/api/v1/sources/ct-gone/test", "").json().get("error").asString();

        assertThat(refused).contains("role \"ct_nologin\" is not permitted to log in").doesNotContain("***");
        assertThat(gone).contains("Check that the hostname and port are correct").doesNotContain("***");
    }

    @Test
    void testingAnUnknownSourceAnswers404() {
        assertThat(api().post("/api/v1/sources/ct-nowhere/test", "").status()).isEqualTo(404);
    }
}
