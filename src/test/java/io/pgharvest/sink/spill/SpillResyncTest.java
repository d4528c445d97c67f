package io.pgharvest.sink.spill;

import io.pgharvest.sink.postgres.PostgresSinkProperties;
import io.pgharvest.sink.dispatch.ConfiguredSink;
import io.pgharvest.sink.delivery.DeliverySettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.Sink;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.sink.dispatch.SinkDispatcher;
import io.pgharvest.sink.postgres.PostgresSink;
import io.pgharvest.sink.postgres.SinkPoolThreads;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.util.unit.DataSize;

/**
 * A few bytes flipped in the middle of a spill segment (a damaged sector) lose only the records
 * they hit: recovery finds the next good record, every record after the damage reaches the real
 * PostgreSQL sink, the damaged bytes are kept in {@code quarantine/} and the loss is counted in
 * the sink's status and meters.
 */
class SpillResyncTest {

    private static final SinkPoolThreads THREADS = new SinkPoolThreads();
    private static final int RECORDS = 200;

    @TempDir
    Path dataDir;

    @AfterAll
    static void closeThreads() {
        THREADS.close();
    }

    @Test
    void bytesFlippedInTheMiddleOfASegmentLoseOnlyTheRecordsTheyHit() throws Exception {
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("spill_resync");
        Path spillDir = dataDir.resolve("spill/storage");
        try (SpillLog spill = SpillLog.open(spillDir, 64L * 1024 * 1024, new SpillCodec(), dropped -> { })) {
            spill.append(LongStream.rangeClosed(1, RECORDS).mapToObj(SpillResyncTest::measurement).toList());
        }
        Path segment;
        try (var files = Files.list(spillDir)) {
            segment = files.filter(p -> p.toString().endsWith(".spill")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(segment);
        int middle = bytes.length / 2;
        for (int i = 0; i < 3; i++) {
            bytes[middle + i] ^= (byte) 0x5a;
        }
        Files.write(segment, bytes);

        var meters = new SimpleMeterRegistry();
        var delivery = new DeliverySettings(50, Duration.ofMillis(200), 1_000, DataSize.ofMegabytes(64).toBytes(),
                Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofSeconds(5));
        Sink sink = PostgresSink.create("pgharvest.sinks[0]", "storage",
                PostgresSinkProperties.of(pg.connStr("spill_resync")), THREADS, Clock.systemUTC());
        SinkDispatcher dispatcher = SinkDispatcher.open(List.of(new ConfiguredSink("postgres", null, sink, delivery)),
                dataDir.resolve("spill"), meters, Clock.systemUTC());
        dispatcher.start();
        try {
            // A measurement published after the restart marks the end of the spill's delivery.
            dispatcher.publish(List.of(measurement(RECORDS + 1)));
            await().atMost(Duration.ofSeconds(60)).until(() -> stored(pg).contains((long) RECORDS + 1));

            List<Long> stored = stored(pg);
            List<Long> missing = LongStream.rangeClosed(1, RECORDS).boxed().filter(s -> !stored.contains(s)).toList();
            System.out.printf("spill resync: %d of %d records lost to 3 flipped bytes: %s%n", missing.size(), RECORDS,
                    missing);
            assertThat(missing).as("records lost to the damage").isNotEmpty().hasSizeLessThanOrEqualTo(2);
            long lastLost = missing.getLast();
            assertThat(stored).as("every record after the damage is delivered")
                    .containsAll(LongStream.rangeClosed(lastLost + 1, RECORDS + 1).boxed().toList());
            assertThat(lastLost).as("the damage is in the middle").isBetween(RECORDS / 4L, RECORDS * 3 / 4L);

            SinkStatus status = dispatcher.statuses().getFirst();
            assertThat(status.quarantined()).as("records lost, in the status").isEqualTo(missing.size());
            assertThat(status.quarantinedBytes()).as("bytes set aside, in the status").isPositive();
            assertThat(status.dropped()).as("a lost record is a dropped measurement").isEqualTo(missing.size());
            assertThat(meters.get("pgharvest.sink.spill.quarantined").functionCounter().count())
                    .isEqualTo(missing.size());
            assertThat(meters.get("pgharvest.sink.spill.quarantined.bytes").functionCounter().count())
                    .isEqualTo(status.quarantinedBytes());
            try (var quarantined = Files.list(spillDir.resolve("quarantine"))) {
                List<Path> files = quarantined.toList();
                assertThat(files).isNotEmpty();
                long kept = 0;
                for (Path file : files) {
                    kept += Files.size(file);
                }
                assertThat(kept).as("the damaged bytes are kept for inspection").isEqualTo(status.quarantinedBytes());
            }
        } finally {
            dispatcher.stop();
        }
    }

    private static Measurement measurement(long seq) {
        return new Measurement("src", "spill_probe", Instant.parse("2026-01-01T00:00:00Z").plusSeconds(seq),
                List.of(new Measurement.Row(Map.of("seq", seq, "note", "a record of the spill resync test"), null)),
                Map.of("tick", "x"));
    }

    private static List<Long> stored(TestPostgres pg) {
        var seqs = new ArrayList<Long>();
        try (Connection c = pg.connect("spill_resync"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT (data->>'seq')::bigint FROM public.spill_probe ORDER BY 1")) {
            while (rs.next()) {
                seqs.add(rs.getLong(1));
            }
        } catch (Exception e) {
            return List.of(); // table not created yet
        }
        return seqs;
    }
}
