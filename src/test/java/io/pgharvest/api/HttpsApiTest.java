package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The admin API speaks HTTPS with Spring Boot's server.ssl settings, as docs/security.md shows. */
class HttpsApiTest extends ApiTestBase {

    private static final String PASSWORD = "test-keystore-pw";
    private static final Path KEY_STORE = createKeyStore();

    @DynamicPropertySource
    static void tls(DynamicPropertyRegistry registry) {
        registry.add("server.ssl.key-store", () -> "file:" + KEY_STORE);
        registry.add("server.ssl.key-store-password", () -> PASSWORD);
        registry.add("server.ssl.key-store-type", () -> "PKCS12");
    }

    @Test
    void theApiAnswersOverHttpsAndNotOverPlainHttp() throws Exception {
        var https = HttpClient.newBuilder().sslContext(trusting(KEY_STORE)).connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> answer = https.send(HttpRequest.newBuilder(
                        URI.create("https://localhost:" + port + "/api/v1/sources"))
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");

        var plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThatThrownBy(() -> {
            HttpResponse<String> response = plain.send(HttpRequest.newBuilder(
                            URI.create("http://localhost:" + port + "/api/v1/sources")).timeout(Duration.ofSeconds(5))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            // Tomcat answers plain HTTP on a TLS port with 400; it never serves the API there.
            if (response.statusCode() != 200) {
                throw new IOException("plain HTTP refused with " + response.statusCode());
            }
        }).isInstanceOf(IOException.class);
    }

    private static SSLContext trusting(Path keyStore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        var trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    /** A self-signed certificate for localhost, made by the JDK's keytool. */
    private static Path createKeyStore() {
        try {
            Path dir = Files.createTempDirectory("pgharvest-tls");
            Path store = dir.resolve("api.p12");
            String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
            Process process = new ProcessBuilder(List.of(keytool, "-genkeypair", "-alias", "api", "-keyalg", "EC",
                    "-groupname", "secp256r1", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                    "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD,
                    "-keypass", PASSWORD)).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("keytool failed: " + output);
            }
            return store;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
