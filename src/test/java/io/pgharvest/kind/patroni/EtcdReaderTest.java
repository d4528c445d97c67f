package io.pgharvest.kind.patroni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.testsupport.TestPatroniCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The etcd reader against a real etcd (Debian's etcd-server): member keys of Patroni's layout are
 * found under a namespace and scope, a dead endpoint is skipped for a live one, and with etcd's
 * authentication on, the reader logs in, while a wrong password fails without being quoted.
 */
class EtcdReaderTest {

    private static final TestPatroniCluster etcd = TestPatroniCluster.start(0);
    private static final HttpClient http = HttpClient.newHttpClient();
    private final ClusterReader reader = new ClusterReader(new EtcdReader(http, Duration.ofSeconds(5)));

    @AfterAll
    static void stopEtcd() {
        etcd.close();
    }

    @Test
    void findsTheMembersOfOneScopeOrOfAWholeNamespaceWithAFailingEndpointFirst() throws IOException {
        put("/service/alpha/members/a1", "{\"conn_url\":\"postgres://10.0.0.1:5432/postgres\","
                + "\"api_url\":\"http://10.0.0.1:8008/patroni\",\"role\":\"master\",\"state\":\"running\"}");
        put("/service/alpha/members/a2", "{\"conn_url\":\"postgres://10.0.0.2:5432/postgres\",\"role\":\"replica\"}");
        put("/service/alpha/leader", "a1");
        put("/service/alphabet/members/x1", "{\"conn_url\":\"postgres://10.0.0.9:5432/postgres\",\"role\":\"master\"}");
        put("/service/beta/members/b1", "{\"conn_url\":\"postgres://10.0.1.1:5432/postgres\",\"role\":\"primary\"}");
        put("/service/beta/members/broken", "not json");
        put("/other/gamma/members/g1", "{\"conn_url\":\"postgres://10.0.2.1:5432/postgres\",\"role\":\"primary\"}");

        List<PatroniMember> alpha = reader.members(DcsAddress.parse("etcd://127.0.0.1:1," + etcd.etcdEndpoint()
                + "/service/alpha"));
        assertThat(alpha).extracting(PatroniMember::name).containsExactly("a1", "a2");
        assertThat(alpha.getFirst()).isEqualTo(new PatroniMember("alpha", "a1", "postgres://10.0.0.1:5432/postgres",
                "http://10.0.0.1:8008/patroni", "master", "running"));
        assertThat(alpha.getFirst().displayRole()).isEqualTo("primary");

        List<PatroniMember> namespace = reader.members(DcsAddress.parse("etcd://" + etcd.etcdEndpoint() + "/service"));
        assertThat(namespace).extracting(m -> m.scope() + "/" + m.name())
                .containsExactly("alpha/a1", "alpha/a2", "alphabet/x1", "beta/b1");
    }

    @Test
    void anUnreachableEtcdIsAClearError() {
        assertThatThrownBy(() -> reader.members(DcsAddress.parse("etcd://127.0.0.1:1/service/alpha")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no etcd endpoint answered")
                .hasMessageContaining("127.0.0.1:1");
    }

    /** On an etcd of its own: once authentication is on, only logged-in clients read. */
    @Test
    void withAuthenticationTheReaderLogsInAndAWrongPasswordIsNotQuoted() throws IOException {
        TestPatroniCluster secured = TestPatroniCluster.start(0);
        try {
            URI base = secured.etcdUrl();
            post(base, "/v3/kv/put", "{\"key\":\"" + b64("/service/s/members/m") + "\",\"value\":\""
                    + b64("{\"conn_url\":\"postgres://10.0.3.1:5432/postgres\",\"role\":\"replica\"}") + "\"}");
            post(base, "/v3/auth/role/add", "{\"name\":\"root\"}");
            post(base, "/v3/auth/user/add", "{\"name\":\"root\",\"password\":\"etcd-secret\"}");
            post(base, "/v3/auth/user/grant", "{\"user\":\"root\",\"role\":\"root\"}");
            post(base, "/v3/auth/enable", "{}");

            assertThat(reader.members(DcsAddress.parse("etcd://root:etcd-secret@" + secured.etcdEndpoint()
                    + "/service/s"))).extracting(PatroniMember::name).containsExactly("m");
            assertThatThrownBy(() -> reader.members(DcsAddress.parse("etcd://root:wrong-secret@"
                    + secured.etcdEndpoint() + "/service/s")))
                    .isInstanceOf(IOException.class)
                    .satisfies(e -> assertThat(e.getMessage()).contains("authenticate")
                            .doesNotContain("wrong-secret"));
            assertThatThrownBy(() -> reader.members(DcsAddress.parse("etcd://" + secured.etcdEndpoint()
                    + "/service/s"))).isInstanceOf(IOException.class);
        } finally {
            secured.close();
        }
    }

    private static void put(String key, String value) throws IOException {
        post(etcd.etcdUrl(), "/v3/kv/put", "{\"key\":\"" + b64(key) + "\",\"value\":\"" + b64(value) + "\"}");
    }

    private static void post(URI base, String path, String json) throws IOException {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(base.resolve(path))
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IOException(path + ": HTTP " + response.statusCode() + " " + response.body());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static String b64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }
}
