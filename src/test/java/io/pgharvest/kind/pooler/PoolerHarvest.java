package io.pgharvest.kind.pooler;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.RunningApp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import tools.jackson.databind.JsonNode;

/**
 * pgharvest started for the pooler end-to-end tests: a JSON lines sink in the data directory,
 * and helpers that wait for a source's measurements to arrive there.
 */
final class PoolerHarvest implements AutoCloseable {

    static final Duration PATIENCE = Duration.ofSeconds(30);

    private final RunningApp app;
    private final Path file;

    private PoolerHarvest(RunningApp app, Path file) {
        this.app = app;
        this.file = file;
    }

    static PoolerHarvest start(Path dataDir) {
        Path file = dataDir.resolve("measurements.jsonl");
        return new PoolerHarvest(RunningApp.start(dataDir, "--pgharvest.sinks[0].type=jsonfile",
                "--pgharvest.sinks[0].path=" + file, "--pgharvest.sinks[0].batch-delay=100ms",
                "--pgharvest.connect-timeout=2s"), file);
    }

    ApiClient api() {
        return app.api();
    }

    /** Registers a source of {@code kind} collecting {@code metrics} every second; fails unless created. */
    void addSource(String name, String kind, String connStr, List<String> metrics) {
        var selection = new java.util.TreeMap<String, Integer>();
        metrics.forEach(metric -> selection.put(metric, 1));
        var created = api().post("/api/v1/sources", Map.of("name", name, "kind", kind, "connStr", connStr,
                "metrics", selection));
        if (created.status() != 201) {
            throw new AssertionError("source " + name + " not created: " + created.body());
        }
    }

    /** The newest line the sink wrote for {@code source} and {@code metric}, once there is one. */
    JsonNode awaitMeasurement(String source, String metric) {
        return Awaitility.await(metric + " of " + source + " in the JSON lines sink").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(200)).until(() -> newest(source, metric), line -> line != null);
    }

    /** The newest line for {@code source} and {@code metric} once it satisfies {@code wanted}. */
    JsonNode awaitMeasurementWhere(String source, String metric, java.util.function.Predicate<JsonNode> wanted) {
        return Awaitility.await(metric + " of " + source + " as wanted in the JSON lines sink").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> newest(source, metric), line -> line != null && wanted.test(line));
    }

    /** The source's runtime status once {@code done} holds. */
    JsonNode awaitStatus(String source, java.util.function.Predicate<JsonNode> done) {
        return Awaitility.await("status of " + source).atMost(PATIENCE).pollInterval(Duration.ofMillis(100))
                .until(() -> api().get("/api/v1/sources/" + source + "/status").json(), done);
    }

    private JsonNode newest(String source, String metric) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        JsonNode found = null;
        for (String line : Files.readAllLines(file)) {
            JsonNode node = ApiClient.JSON.readTree(line);
            if (node.get("source").asString().equals(source) && node.get("metric").asString().equals(metric)) {
                found = node;
            }
        }
        return found;
    }

    @Override
    public void close() {
        app.close();
    }
}
