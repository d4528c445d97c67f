package io.pgharvest.sink.remotewrite;

import io.pgharvest.PgharvestApplication;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.JsonNode;

/**
 * A pgharvest collecting one embedded PostgreSQL database as source {@value #SOURCE} (tag
 * {@code env=test}) into a remote-write sink and, as the ground truth of what was collected, a
 * JSON lines file (a sink that never fails). Restartable on the same data directory.
 */
final class CollectingHarvester implements AutoCloseable {

    static final String SOURCE = "rw_source";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** One collected measurement as the JSON lines sink wrote it. */
    record Collected(String metric, Instant time, List<Map<String, Object>> rows) {
    }

    private final Path dir;
    private final List<String> arguments;
    private ConfigurableApplicationContext app;

    /**
     * @param metrics the source's metrics and intervals in seconds, as YAML flow mapping, e.g. {@code {db_stats: 1}}
     * @param sinkOptions further {@code pgharvest.sinks[0]} options, as {@code name=value}
     */
    CollectingHarvester(Path dir, TestPostgres server, String database, String writeUrl, String metrics,
            String... sinkOptions) throws IOException {
        this.dir = dir;
        Path sources = Files.writeString(dir.resolve("sources.yaml"), """
                - name: %s
                  conn_str: %s
                  custom_metrics: %s
                  custom_tags: {env: test}
                  is_enabled: true
                """.formatted(SOURCE, server.connStr(database), metrics));
        arguments = new ArrayList<>(List.of("--server.port=0", "--spring.main.banner-mode=off",
                "--pgharvest.data-dir=" + dir.resolve("data"), "--pgharvest.api.token=remote-write-test-token-01",
                "--pgharvest.import.sources=" + sources,
                "--pgharvest.sinks[0].type=prometheus-remote-write", "--pgharvest.sinks[0].name=rw",
                "--pgharvest.sinks[0].url=" + writeUrl, "--pgharvest.sinks[0].retry-max=2s",
                "--pgharvest.sinks[1].type=jsonfile", "--pgharvest.sinks[1].name=truth",
                "--pgharvest.sinks[1].path=" + dir.resolve("truth.jsonl")));
        for (String option : sinkOptions) {
            arguments.add("--pgharvest.sinks[0]." + option);
        }
        start();
    }

    void start() {
        app = SpringApplication.run(PgharvestApplication.class, arguments.toArray(String[]::new));
    }

    /** A clean shutdown: the queue is flushed or spilled. */
    void stop() {
        if (app != null) {
            app.close();
            app = null;
        }
    }

    SinkStatus status() {
        return app.getBean(SinkDispatcher.class).statuses().stream().filter(s -> s.name().equals("rw")).findFirst()
                .orElseThrow();
    }

    Path spillDir() {
        return dir.resolve("data").resolve("spill").resolve("rw");
    }

    /** Every measurement of {@code metric} the ground-truth sink received so far, in file order. */
    List<Collected> collected(String metric) {
        var all = new ArrayList<Collected>();
        try {
            Path file = dir.resolve("truth.jsonl");
            if (!Files.exists(file)) {
                return all;
            }
            for (String line : Files.readAllLines(file)) {
                JsonNode node = JSON.readTree(line);
                if (node.path("metric").asString().equals(metric) && node.path("source").asString().equals(SOURCE)) {
                    var rows = new ArrayList<Map<String, Object>>();
                    node.path("rows").forEach(row -> rows.add(JSON.convertValue(row, Map.class)));
                    all.add(new Collected(metric, Instant.parse(node.path("time").asString()), rows));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return all;
    }

    @Override
    public void close() {
        stop();
    }
}
