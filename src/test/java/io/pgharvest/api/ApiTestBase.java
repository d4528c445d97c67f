package io.pgharvest.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * One running application shared by the API test classes (same configuration, so Spring's test
 * context cache starts it once): a temp data directory, a fixed token, a random port. Tests give
 * their items names of their own, since they share the store.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
public abstract class ApiTestBase {

    protected static final String TOKEN = "test-token-0123456789abcdef";
    protected static final Path DATA_DIR = createDataDir();
    /** The storage database of the context's history reader (pgharvest.history[0]). */
    protected static final String HISTORY_DB = "api_history";

    @LocalServerPort
    protected int port;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        // Called once per context: each context (HttpsApiTest's and others derive their own) gets a
        // scrape port of its own, since a cached context keeps its sinks open while it is paused.
        int prometheusPort = freePort();
        registry.add("pgharvest.data-dir", DATA_DIR::toString);
        registry.add("pgharvest.api.token", () -> TOKEN);
        registry.add("pgharvest.connect-timeout", () -> "2s");
        // Room for the test that parks 2,000 blocking queries at once.
        registry.add("server.tomcat.max-connections", () -> "10000");
        registry.add("server.tomcat.accept-count", () -> "4096");
        registry.add("pgharvest.api.blocking.max-waiting", () -> "10000");
        registry.add("pgharvest.api.blocking.max-waiting-per-client", () -> "10000");
        // A plan stands 5 s instead of a day, so a test sees a plan change within a minute.
        registry.add("pgharvest.query-insights.plan-every", () -> "5s");
        // active_sessions delivers its samplings every 2 s instead of 10 s: a running statement shows sooner.
        registry.add("pgharvest.query-insights.sample-rows-every", () -> "2s");
        // query_plans plans on a planning role's own login (docs/security.md): one for every test source.
        registry.add("pgharvest.query-insights.planning-user", () -> {
            io.pgharvest.testsupport.TestPostgres.shared().execute("postgres",
                    io.pgharvest.testsupport.TestPostgres.CREATE_TEST_PLANNER);
            return io.pgharvest.testsupport.TestPostgres.TEST_PLANNER;
        });
        // The default sinks (JSON lines under the data dir, Prometheus), but the scrape endpoint on
        // a port of its own: this context stays cached for the whole run, and on the default port
        // 9187 it would keep SinkConfigurationTest (which needs that port) from ever getting it.
        registry.add("pgharvest.sinks[0].type", () -> "jsonfile");
        registry.add("pgharvest.sinks[1].type", () -> "prometheus");
        registry.add("pgharvest.sinks[1].port", () -> String.valueOf(prometheusPort));
        // The tests' own kind of sink (io.pgharvest.sink.memory), configured as any kind is.
        registry.add("pgharvest.sinks[2].type", () -> "test-memory");
        registry.add("pgharvest.sinks[2].name", () -> "api-memory");
        registry.add("pgharvest.sinks[2].batch-delay", () -> "50ms");
        // History beyond the window from a storage database the history tests write through a postgres sink.
        registry.add("pgharvest.history[0].type", () -> "postgres");
        registry.add("pgharvest.history[0].url", () -> {
            io.pgharvest.testsupport.TestPostgres.shared().createDatabase(HISTORY_DB);
            return io.pgharvest.testsupport.TestPostgres.shared().connStr(HISTORY_DB);
        });
        registry.add("pgharvest.history[0].retention", () -> "30d");
    }

    protected ApiClient api() {
        return new ApiClient(port, TOKEN);
    }

    private static int freePort() {
        try (var socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path createDataDir() {
        try {
            return Files.createTempDirectory("pgharvest-api-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
