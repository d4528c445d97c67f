package io.pgharvest.sink.jsonfile;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.Measurement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

@Tag("fast")
class JsonLinesSinkTest {

    @TempDir
    Path dir;

    private final JsonMapper mapper = JsonMapper.builder().build();

    @Test
    void eachMeasurementIsOneJsonObjectOnItsOwnLine() throws Exception {
        JsonLinesSink sink = create(dir.resolve("out/measurements.jsonl"), 1024 * 1024, 3);
        var values = new LinkedHashMap<String, Object>();
        values.put("xact_commit", 12L);
        values.put("ratio", Double.NaN);
        values.put("name", "line\nbreak");
        sink.write(List.of(
                new Measurement("db1", "db_stats", Instant.parse("2024-05-17T10:00:00.5Z"),
                        List.of(new Measurement.Row(values, Map.of("datname", "shop"))), Map.of("env", "prod")),
                new Measurement("db2", "instance_up", Instant.parse("2024-05-17T10:00:01Z"),
                        List.of(new Measurement.Row(Map.of("instance_up", 0), null)), Map.of())));
        sink.close();

        List<String> lines = Files.readAllLines(dir.resolve("out/measurements.jsonl"));
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(dir.resolve("out/measurements.jsonl")))).isEqualTo("rw-------");
        assertThat(lines).hasSize(2);
        JsonNode first = mapper.readTree(lines.get(0));
        assertThat(first.get("source").asString()).isEqualTo("db1");
        assertThat(first.get("metric").asString()).isEqualTo("db_stats");
        assertThat(first.get("time").asString()).isEqualTo("2024-05-17T10:00:00.500Z");
        assertThat(first.get("tags").get("env").asString()).isEqualTo("prod");
        JsonNode row = first.get("rows").get(0);
        assertThat(row.get("xact_commit").asLong()).isEqualTo(12);
        assertThat(row.get("ratio").isNull()).isTrue();
        assertThat(row.get("name").asString()).isEqualTo("line\nbreak");
        assertThat(row.get("tag_datname").asString()).isEqualTo("shop");
        assertThat(mapper.readTree(lines.get(1)).get("rows").get(0).get("instance_up").asInt()).isZero();
    }

    @Test
    void theFileIsRotatedBySizeAndOnlyTheConfiguredNumberOfOldFilesIsKept() throws Exception {
        Path file = dir.resolve("measurements.jsonl");
        JsonLinesSink sink = create(file, 1024, 3);
        for (int seq = 1; seq <= 101; seq++) {
            sink.write(List.of(new Measurement("db1", "seq", Instant.now(),
                    List.of(new Measurement.Row(Map.of("seq", seq, "padding", "x".repeat(200)), null)), Map.of())));
        }
        sink.close();

        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted()).containsExactly(
                    "measurements.jsonl", "measurements.jsonl.1", "measurements.jsonl.2", "measurements.jsonl.3");
        }
        for (String name : List.of("measurements.jsonl.1", "measurements.jsonl.2", "measurements.jsonl.3")) {
            assertThat(Files.size(dir.resolve(name))).isBetween(1024L, 1024L + 400);
        }
        // The newest rotated file holds the lines right before the current file's.
        long lastRotated = lastSeq(dir.resolve("measurements.jsonl.1"));
        long firstCurrent = mapper.readTree(Files.readAllLines(file).getFirst()).get("rows").get(0).get("seq").asLong();
        assertThat(firstCurrent).isEqualTo(lastRotated + 1);
        assertThat(lastSeq(file)).isEqualTo(101);
        assertThat(lastSeq(dir.resolve("measurements.jsonl.2"))).isLessThan(lastRotated);
    }

    private long lastSeq(Path path) throws Exception {
        return mapper.readTree(Files.readAllLines(path).getLast()).get("rows").get(0).get("seq").asLong();
    }

    private static JsonLinesSink create(Path file, long rotationBytes, int kept) {
        return JsonLinesSink.create("jsonfile", file,
                new JsonFileSinkProperties(file.toString(), DataSize.ofBytes(rotationBytes), kept));
    }

    @Test
    void theOperatorsTagsAndARowsTagColumnsAreKeptApartSoNeitherOverridesTheOther() throws Exception {
        Path file = dir.resolve("tags/measurements.jsonl");
        JsonLinesSink sink = create(file, 1024 * 1024, 3);
        sink.write(List.of(new Measurement("db1", "db_stats", Instant.parse("2024-05-17T10:00:00Z"),
                List.of(new Measurement.Row(Map.of("numbackends", 3), Map.of("job", "from-the-row"))),
                Map.of("job", "operator"))));
        sink.close();

        var line = mapper.readTree(Files.readAllLines(file).getFirst());
        assertThat(line.get("tags").get("job").asString()).isEqualTo("operator");
        assertThat(line.get("rows").get(0).get("tag_job").asString()).isEqualTo("from-the-row");
    }
}
