package io.pgharvest.lease;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One pgharvest JVM of a test fleet: its own data directory, JSON lines sink and log. */
final class FleetProcess implements AutoCloseable {

    static final String TOKEN = "fleet-test-token-0123456789";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    final String id;
    final Path dataDir;
    final int port;
    private final Process process;

    private FleetProcess(String id, Path dataDir, int port, Process process) {
        this.id = id;
        this.dataDir = dataDir;
        this.port = port;
        this.process = process;
    }

    static FleetProcess start(String id, Path root, String storeUrl) {
        try {
            Path dataDir = Files.createDirectories(root.resolve(id));
            int port = freePort();
            var command = new ArrayList<String>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                    "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                    "-cp", System.getProperty("java.class.path"), "io.pgharvest.PgharvestApplication",
                    "--server.port=" + port, "--spring.main.banner-mode=off",
                    "--pgharvest.data-dir=" + dataDir, "--pgharvest.api.token=" + TOKEN,
                    "--pgharvest.store.url=" + storeUrl, "--pgharvest.fleet.instance-id=" + id,
                    "--pgharvest.sinks[0].type=jsonfile", "--pgharvest.sinks[0].batch-delay=200ms",
                    // The test servers' login is their superuser (the surefire setting does not reach a child).
                    "--pgharvest.security.allow-superuser-sources=true"));
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dataDir.resolve("pgharvest.log").toFile()).start();
            return new FleetProcess(id, dataDir, port, process);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int freePort() throws IOException {
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** An admin API call; the answer whatever its status. */
    HttpResponse<String> call(String method, String path, String jsonBody) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(90)).header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .method(method, jsonBody == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(jsonBody))
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    Path measurements() {
        return dataDir.resolve("measurements.jsonl");
    }

    /** kill -9: nothing is handed back, nothing flushed. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, then waits for the graceful shutdown to finish. */
    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(id + " did not stop within 90 s");
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
