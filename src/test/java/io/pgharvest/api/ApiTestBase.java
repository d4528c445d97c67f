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

    @LocalServerPort
    protected int port;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("pgharvest.data-dir", DATA_DIR::toString);
        registry.add("pgharvest.api.token", () -> TOKEN);
        registry.add("pgharvest.connect-timeout", () -> "2s");
        // Room for the test that parks 2,000 blocking queries at once.
        registry.add("server.tomcat.max-connections", () -> "10000");
        registry.add("server.tomcat.accept-count", () -> "4096");
    }

    protected ApiClient api() {
        return new ApiClient(port, TOKEN);
    }

    private static Path createDataDir() {
        try {
            return Files.createTempDirectory("pgharvest-api-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
