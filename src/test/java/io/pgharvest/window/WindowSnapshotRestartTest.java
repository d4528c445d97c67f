package io.pgharvest.window;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.PgharvestProcess;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A restart keeps the picture: pgharvest in a JVM of its own collects a real database, is killed
 * with {@code kill -9} and started again on the same data directory - the series it answered
 * before are back at once from the window's snapshot; a snapshot corrupted meanwhile is reported
 * in one log line and the start goes on with an empty window.
 */
class WindowSnapshotRestartTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final String[] ARGUMENTS = {"--pgharvest.window.snapshot-every=1s",
        "--pgharvest.sinks[0].type=jsonfile"};

    @TempDir
    Path dataDir;

    @Test
    void afterKillNineTheSeriesAreBackFromTheSnapshotAndACorruptSnapshotIsReportedAndIgnored() throws Exception {
        PG.createDatabase("window_snapshot_db");
        Path snapshot = dataDir.resolve(WindowSnapshotFile.FILE_NAME);
        JsonNode before;
        long secondLast;
        try (var first = PgharvestProcess.start(dataDir, ARGUMENTS)) {
            assertThat(first.api().post("/api/v1/sources", Map.of("name", "snap-db",
                    "connStr", PG.connStr("window_snapshot_db"), "metrics", Map.of("db_stats", 1, "db_size", 1)))
                    .status()).isEqualTo(201);
            before = await(() -> window(first), body -> points(body, "xact_commit") >= 4);
            long answeredAt = System.currentTimeMillis();
            // the periodic write after that answer holds every point of it
            await(() -> modifiedMillis(snapshot), modified -> modified > answeredAt + 100);
            first.kill();
        }

        try (var second = PgharvestProcess.start(dataDir, ARGUMENTS)) {
            JsonNode after = window(second);
            Map<String, JsonNode> restored = bySeries(after);
            int compared = 0;
            for (JsonNode series : before.get("series")) {
                JsonNode again = restored.get(keyOf(series));
                assertThat(again).as(keyOf(series)).isNotNull();
                assertThat(again.get("store").asString()).isEqualTo("snapshot");
                Map<Long, Double> points = pointsOf(again);
                for (int i = 0; i < series.get("times").size(); i++) {
                    assertThat(points).containsEntry(series.get("times").get(i).asLong(),
                            series.get("values").get(i).asDouble());
                    compared++;
                }
            }
            assertThat(compared).isGreaterThanOrEqualTo(4);
            assertThat(second.log()).contains("The recent window restored");
            secondLast = lastTime(window(second));
            second.kill();
        }

        byte[] file = Files.readAllBytes(snapshot);
        file[file.length - 3] ^= 0x55;
        Files.write(snapshot, file);
        try (var third = PgharvestProcess.start(dataDir, ARGUMENTS)) {
            assertThat(third.log().lines().filter(line -> line.contains("window-snapshot.bin is dropped")).toList())
                    .singleElement().asString().contains("checksum mismatch", "the window starts empty");
            // collected since this start only: nothing of the two runs before
            JsonNode fresh = await(() -> window(third), body -> points(body, "size_b") >= 1);
            for (JsonNode series : fresh.get("series")) {
                assertThat(series.get("store").asString()).isEqualTo("window");
                assertThat(series.get("times").valueStream().mapToLong(JsonNode::asLong).min().orElse(Long.MAX_VALUE))
                        .isGreaterThan(secondLast);
            }
            assertThat(third.api().get("/api/v1/sources/snap-db").status()).isEqualTo(200);
        }
    }

    private static JsonNode window(PgharvestProcess app) {
        var answer = app.api().get("/api/v1/sources/snap-db/window?metric=db_stats&metric=db_size");
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        return answer.json();
    }

    private static int points(JsonNode body, String column) {
        return body.get("series").valueStream().filter(s -> s.get("column").asString().equals(column))
                .mapToInt(s -> s.get("times").size()).sum();
    }

    private static long lastTime(JsonNode body) {
        return body.get("series").valueStream().flatMap(s -> s.get("times").valueStream()).mapToLong(JsonNode::asLong)
                .max().orElseThrow();
    }

    private static Map<String, JsonNode> bySeries(JsonNode body) {
        var found = new HashMap<String, JsonNode>();
        body.get("series").forEach(series -> found.put(keyOf(series), series));
        return found;
    }

    private static String keyOf(JsonNode series) {
        return series.get("metric").asString() + "/" + series.get("column").asString() + "/" + series.get("tags");
    }

    private static Map<Long, Double> pointsOf(JsonNode series) {
        var points = new HashMap<Long, Double>();
        for (int i = 0; i < series.get("times").size(); i++) {
            points.put(series.get("times").get(i).asLong(), series.get("values").get(i).asDouble());
        }
        return points;
    }

    private static long modifiedMillis(Path file) {
        try {
            return Files.exists(file) ? Files.getLastModifiedTime(file).toMillis() : 0;
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    private static <T> T await(Supplier<T> read, Predicate<T> done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        T last = read.get();
        while (!done.test(last)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached within 60 s; last: " + last);
            }
            Thread.sleep(100);
            last = read.get();
        }
        return last;
    }

}
