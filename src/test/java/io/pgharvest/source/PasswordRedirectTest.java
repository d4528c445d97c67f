package io.pgharvest.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiTestBase;
import io.pgharvest.testsupport.PasswordCatcher;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A caller holding the API token cannot make pgharvest send a stored password to a server of
 * the caller's choice: the mask only keeps the password for the same host, port, user and
 * database, and the connection test only uses what is stored.
 */
class PasswordRedirectTest extends ApiTestBase {

    private static final String STORED = "stored-secret-7f3a";

    @Test
    void theStoredPasswordNeverReachesAServerTheCallerNames() throws Exception {
        try (var attacker = new PasswordCatcher()) {
            assertThat(api().post("/api/v1/sources", Map.of("name", "redirect-target", "enabled", false,
                    "connStr", "postgresql://monitor:" + STORED + "@127.0.0.1:1/orders")).status()).isEqualTo(201);

            for (String redirect : new String[] {
                    "postgresql://monitor:********@127.0.0.1:" + attacker.port() + "/orders",
                    "postgresql://monitor:********@localhost:1/orders",
                    "postgresql://evil:********@127.0.0.1:1/orders",
                    "postgresql://monitor:********@127.0.0.1:1/postgres",
                    "host=127.0.0.1 port=" + attacker.port() + " user=monitor dbname=orders password=********"}) {
                var refused = api().put("/api/v1/sources/redirect-target", Map.of("connStr", redirect, "enabled", false));
                assertThat(refused.status()).as(redirect).isEqualTo(400);
                assertThat(refused.errorFields()).as(redirect).containsExactly("connStr");
                assertThat(api().post("/api/v1/sources/redirect-target/test", Map.of()).json().get("reachable")
                        .asBoolean()).isFalse();
            }
            assertThat(attacker.passwords()).isEmpty();

            // The control: a password given for the new destination does travel there (so the
            // catcher would have seen the stored one, had it been sent).
            var moved = api().put("/api/v1/sources/redirect-target", Map.of("enabled", false,
                    "connStr", "postgresql://monitor:given-for-new-host@127.0.0.1:" + attacker.port() + "/orders"));
            assertThat(moved.status()).as(moved.toString()).isEqualTo(200);
            var test = api().post("/api/v1/sources/redirect-target/test", Map.of()).json();
            assertThat(test.get("reachable").asBoolean()).isFalse();
            assertThat(test.get("sqlState").asString()).isEqualTo("28P01");
            assertThat(attacker.passwords()).containsOnly("given-for-new-host").doesNotContain(STORED);
        }
    }
}
