package io.pgharvest.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.testsupport.PgharvestProcess;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A restart keeps the picture with a PostgreSQL sink and no snapshot at all: pgharvest in a JVM of
 * its own collects a real database into a postgres sink (the window's snapshot off), is killed with
 * {@code kill -9} and started again on the same data directory with an empty window; the range it
 * collected before is answered by the derived {@code postgres} reader, every gauge bucket with the
 * mean of the points the window had shown before the kill. (With only the snapshot:
 * {@code window.WindowSnapshotRestartTest}.)
 */
class RestartFromStoreTest {

    private static final TestPostgres PG = TestPostgres.shared();
    private static final String SOURCE = "restart-db";
    private static final long STEP_MILLIS = 2_000;

    @TempDir
    Path dataDir;

    @Test
    void afterKillNineTheRangeCollectedBeforeIsReadFromThePostgresSinksStore() throws Exception {
        PG.createDatabase("restart_store_source");
        PG.createDatabase("restart_store_sink");
        String[] arguments = {"--pgharvest.window.snapshot-every=0s", "--pgharvest.sinks[0].type=postgres",
            "--pgharvest.sinks[0].url=" + PG.connStr("restart_store_sink")};
        Instant started = Instant.now();
        JsonNode before;
        try (var first = PgharvestProcess.start(dataDir, arguments)) {
            assertThat(first.api().post("/api/v1/sources", Map.of("name", SOURCE,
                    "connStr", PG.connStr("restart_store_source"), "metrics", Map.of("db_stats", 1))).status())
                    .isEqualTo(201);
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> points(window(first, "")) >= 8);
            before = window(first, "");
            long newest = newest(before);
            // what the window showed has reached the store (the sink writes in batches); later points may not
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> !PG.queryString("restart_store_sink", "select count(*) from db_stats where dbname = '"
                            + SOURCE + "' and time >= to_timestamp(" + newest + " / 1000.0)").equals("0"));
            first.kill();
        }
        assertThat(Files.exists(dataDir.resolve("window-snapshot.bin"))).isFalse();
        Instant lastBefore = Instant.ofEpochMilli(newest(before));

        try (var second = PgharvestProcess.start(dataDir, arguments)) {
            // from well before the first run: the new window, collecting since this start, does not hold it
            // (it answers ranges whose start is at most 90 s before its oldest point)
            String range = "&from=" + started.minus(Duration.ofMinutes(3)) + "&to=" + lastBefore.plusMillis(1) + "&step=2s";
            JsonNode stored = window(second, range);
            assertThat(stored.get("store").asString()).isEqualTo("postgres");
            assertThat(stored.get("error").isNull()).as("error %s", stored.get("error")).isTrue();
            Map<String, JsonNode> storedSeries = bySeries(stored);
            int compared = 0;
            for (JsonNode series : before.get("series")) {
                if (!series.get("kind").asString().equals("gauge")) {
                    continue;
                }
                JsonNode again = storedSeries.get(keyOf(series));
                assertThat(again).as(keyOf(series)).isNotNull();
                Map<Long, Double> got = pointsOf(again);
                for (var bucket : bucketMeans(series).entrySet()) {
                    assertThat(got).as("%s at %s", keyOf(series), Instant.ofEpochMilli(bucket.getKey()))
                            .containsKey(bucket.getKey());
                    assertThat(got.get(bucket.getKey())).isCloseTo(bucket.getValue(),
                            org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, Math.abs(bucket.getValue()))));
                    compared++;
                }
            }
            assertThat(compared).as("gauge buckets compared").isGreaterThanOrEqualTo(4);
            // the counters are there too, as rates
            assertThat(stored.get("series").valueStream().filter(s -> s.get("column").asString().equals("xact_commit"))
                    .mapToInt(s -> s.get("times").size()).sum()).isPositive();
            // The fleet's key numbers over the same range: within the window's span, but not in this window,
            // so from the store too, with the first run's mean sessions.
            var fleet = second.api().get("/api/v1/window?from=" + started.minus(Duration.ofMinutes(3)) + "&to="
                    + lastBefore.plusMillis(1));
            assertThat(fleet.status()).as(fleet.body()).isEqualTo(200);
            JsonNode numbers = fleet.json().valueStream().filter(n -> n.get("source").asString().equals(SOURCE))
                    .findFirst().orElseThrow();
            assertThat(numbers.get("store").asString()).as("%s", numbers).isEqualTo("postgres");
            double sessions = before.get("series").valueStream()
                    .filter(series -> series.get("column").asString().equals("numbackends"))
                    .flatMap(series -> series.get("values").valueStream()).mapToDouble(JsonNode::asDouble)
                    .average().orElseThrow();
            assertThat(numbers.get("connections").asDouble()).isCloseTo(sessions,
                    org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, sessions)));
        }
    }

    private static JsonNode window(PgharvestProcess app, String range) {
        var answer = app.api().get("/api/v1/sources/" + SOURCE + "/window?metric=db_stats" + range);
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        return answer.json();
    }

    private static int points(JsonNode body) {
        return body.get("series").valueStream().filter(s -> s.get("column").asString().equals("numbackends"))
                .mapToInt(s -> s.get("times").size()).sum();
    }

    private static long newest(JsonNode body) {
        return body.get("series").valueStream().flatMap(s -> s.get("times").valueStream()).mapToLong(JsonNode::asLong)
                .max().orElseThrow();
    }

    /** The window's gauge points as the store buckets them: each bucket's mean. */
    private static Map<Long, Double> bucketMeans(JsonNode series) {
        var sums = new TreeMap<Long, double[]>();
        for (int i = 0; i < series.get("times").size(); i++) {
            long bucket = Math.floorDiv(series.get("times").get(i).asLong(), STEP_MILLIS) * STEP_MILLIS;
            double[] sum = sums.computeIfAbsent(bucket, b -> new double[2]);
            sum[0] += series.get("values").get(i).asDouble();
            sum[1]++;
        }
        var means = new TreeMap<Long, Double>();
        sums.forEach((bucket, sum) -> means.put(bucket, sum[0] / sum[1]));
        return means;
    }

    private static Map<String, JsonNode> bySeries(JsonNode body) {
        var found = new HashMap<String, JsonNode>();
        body.get("series").forEach(series -> found.put(keyOf(series), series));
        return found;
    }

    private static String keyOf(JsonNode series) {
        return series.get("column").asString() + "/" + series.get("tags");
    }

    private static Map<Long, Double> pointsOf(JsonNode series) {
        var points = new HashMap<Long, Double>();
        for (int i = 0; i < series.get("times").size(); i++) {
            points.put(series.get("times").get(i).asLong(), series.get("values").get(i).asDouble());
        }
        return points;
    }
}
