package io.pgharvest.sink.spill;

import io.pgharvest.sink.dispatch.SpillCrashChild;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.model.Measurement;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kill -9} of a collector during a storage outage loses at most the last second: every
 * sequence number published before it is either in the spill log or was published within the
 * last second before the kill.
 */
class KillDuringOutageTest {

    private static final long MAX_LOSS_MILLIS = 1_000;

    @TempDir
    Path dir;

    @Test
    void killMinus9DuringASinkOutageLosesAtMostTheLastSecond() throws Exception {
        int closedPort;
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        String java = ProcessHandle.current().info().command().orElseThrow();
        var child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                SpillCrashChild.class.getName(), dir.toString(), Integer.toString(closedPort))
                .redirectErrorStream(true).start();
        var published = new ConcurrentSkipListMap<Long, Long>();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (var lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.startsWith("published ")) {
                        String[] parts = line.split(" ");
                        published.put(Long.parseLong(parts[1]), Long.parseLong(parts[2]));
                    }
                }
            } catch (java.io.IOException e) {
                // the child is gone
            }
        });
        try {
            // About 8 s into the outage: well past the first failed probe and write.
            await().atMost(Duration.ofSeconds(60)).until(() -> published.size() >= 400);
        } finally {
            child.destroyForcibly(); // SIGKILL
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            reader.join(Duration.ofSeconds(10));
        }

        List<Long> spilled = readSpill(dir.resolve("pg"));
        long lastSeq = published.lastKey();
        long lastAt = published.get(lastSeq);
        Set<Long> onDisk = new HashSet<>(spilled);
        assertThat(spilled).as("no measurement twice").hasSameSizeAs(onDisk);
        // The child may have published one more than it managed to print.
        assertThat(spilled).allSatisfy(seq -> assertThat(seq).isBetween(1L, lastSeq + 1));
        var lost = new ArrayList<Long>();
        for (long seq = 1; seq <= lastSeq; seq++) {
            if (!onDisk.contains(seq)) {
                lost.add(seq);
            }
        }
        long lossMillis = lost.isEmpty() ? 0 : lastAt - published.get(lost.getFirst());
        System.out.printf("kill -9 during a sink outage: %d of %d published measurements lost, the oldest lost one"
                + " published %.3f s before the last one%n", lost.size(), lastSeq, lossMillis / 1000.0);
        assertThat(lossMillis).as("lost: %s", lost).isLessThanOrEqualTo(MAX_LOSS_MILLIS);
        // Lost ones are only the newest: nothing older than them is missing.
        assertThat(lost).allSatisfy(seq -> assertThat(published.get(seq)).isGreaterThanOrEqualTo(lastAt - MAX_LOSS_MILLIS));
    }

    private static List<Long> readSpill(Path spillDir) throws Exception {
        var seqs = new ArrayList<Long>();
        try (var spill = SpillLog.open(spillDir, 64L * 1024 * 1024, new SpillCodec(), dropped -> {
            throw new AssertionError(dropped + " measurements dropped");
        })) {
            SpillLog.Batch batch;
            while ((batch = spill.read(1_000)) != null) {
                for (Measurement m : batch.measurements()) {
                    seqs.add(((Number) m.rows().getFirst().values().get("seq")).longValue());
                }
                spill.ack(batch);
            }
        }
        return seqs;
    }
}
