package io.pgharvest.alert.notify.alertmanager;


import io.pgharvest.testsupport.InstalledPrograms;
import io.pgharvest.alert.notify.dispatch.TestWebhook;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import tools.jackson.databind.JsonNode;

/**
 * Debian's {@code prometheus-alertmanager} (installed by src/test/setup/install-test-servers.sh)
 * as a child process on a free loopback port, clustering off, routing every alert to one webhook
 * at once (group wait and interval of a second) with resolutions.
 */
final class TestAlertmanager implements AutoCloseable {

    static final String PROGRAM = "prometheus-alertmanager";

    private final Path dir;
    private final int port;
    private final Process process;
    private final HttpClient http = HttpClient.newHttpClient();

    private TestAlertmanager(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    static TestAlertmanager start(String webhookUrl) {
        Path program = InstalledPrograms.require(PROGRAM);
        try {
            Path dir = Files.createTempDirectory("pgharvest-alertmanager-");
            int port = freePort();
            Path config = Files.writeString(dir.resolve("alertmanager.yml"), """
                    route:
                      receiver: test-hook
                      group_by: ['alertname', 'source']
                      group_wait: 1s
                      group_interval: 1s
                      repeat_interval: 1h
                    receivers:
                      - name: test-hook
                        webhook_configs:
                          - url: '%s'
                            send_resolved: true
                    """.formatted(webhookUrl));
            Process process = new ProcessBuilder(program.toString(), "--config.file=" + config,
                    "--storage.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                    "--cluster.listen-address=", "--log.level=warn")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
            var alertmanager = new TestAlertmanager(dir, port, process);
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                    .until(() -> alertmanager.get("/-/ready").statusCode() == 200);
            return alertmanager;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String base() {
        return "http://127.0.0.1:" + port;
    }

    /** Alertmanager's alerts ({@code GET /api/v2/alerts}), active, silenced and inhibited alike. */
    List<JsonNode> alerts() {
        return TestWebhook.JSON.readTree(body(get("/api/v2/alerts"))).valueStream().toList();
    }

    /** Creates a silence in Alertmanager; its id. */
    String silence(String label, String value, String comment) {
        String json = """
                {"matchers": [{"name": "%s", "value": "%s", "isRegex": false, "isEqual": true}],
                 "startsAt": "%s", "endsAt": "%s", "createdBy": "test", "comment": "%s"}"""
                .formatted(label, value, java.time.Instant.now(), java.time.Instant.now().plusSeconds(3600), comment);
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base() + "/api/v2/silences"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("silence not created: " + response.statusCode() + " " + response.body());
            }
            return TestWebhook.JSON.readTree(response.body()).get("silenceID").asString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String log() {
        try {
            return Files.readString(dir.resolve("server.log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private HttpResponse<String> get(String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(base() + path)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String body(HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            throw new IllegalStateException("Alertmanager answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    private static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        http.close();
    }
}
