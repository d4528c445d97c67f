package io.pgharvest.sink.dispatch;

import io.pgharvest.sink.RecordingSink;
import io.pgharvest.sink.SinkStatus;
import io.pgharvest.sink.TestSettings;
import io.pgharvest.sink.spill.SpillCodec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.util.unit.DataSize;

/**
 * A spill record that passes its checksum but cannot be decoded (another version's format, a
 * bug) is set aside in quarantine/ and counted; the records around it are delivered and the
 * writer keeps running.
 */
@Tag("fast")
class SpillQuarantineTest {

    @TempDir
    Path dataDir;

    @Test
    void anUndecodableRecordIsQuarantinedAndDeliveryContinues() throws Exception {
        Path spillDir = dataDir.resolve("spill/pg");
        Files.createDirectories(spillDir);
        var codec = new SpillCodec();
        var segment = new ByteArrayOutputStream();
        segment.write("PGHSPIL1".getBytes(StandardCharsets.US_ASCII));
        segment.write(record(codec.encode(RecordingSink.measurement(1))));
        segment.write(record("{\"not\": \"a measurement\"".getBytes(StandardCharsets.UTF_8)));
        segment.write(record(codec.encode(RecordingSink.measurement(3))));
        Files.write(spillDir.resolve("0001000000000000.spill"), segment.toByteArray());

        var sink = new RecordingSink("pg");
        var meters = new SimpleMeterRegistry();
        var dispatcher = SinkDispatcher.open(
                List.of(new ConfiguredSink("postgres", null, sink, TestSettings.delivery(10, 1000, DataSize.ofMegabytes(1)))),
                dataDir.resolve("spill"), meters, Clock.systemUTC());
        dispatcher.start();
        try {
            dispatcher.publish(List.of(RecordingSink.measurement(4)));
            await().atMost(Duration.ofSeconds(10)).until(() -> sink.sequences().size() == 3);

            assertThat(sink.sequences()).containsExactly(1L, 3L, 4L);
            SinkStatus status = dispatcher.statuses().getFirst();
            assertThat(status.quarantined()).isEqualTo(1);
            assertThat(status.writerFailure()).isNull();
            assertThat(status.up()).isTrue();
            assertThat(meters.get("pgharvest.sink.spill.quarantined").functionCounter().count()).isEqualTo(1);
            try (var quarantined = Files.list(spillDir.resolve("quarantine"))) {
                List<Path> files = quarantined.toList();
                assertThat(files).hasSize(1);
                assertThat(new String(Files.readAllBytes(files.getFirst()), StandardCharsets.UTF_8))
                        .contains("not\": \"a measurement");
            }
        } finally {
            dispatcher.stop();
        }
    }

    private static byte[] record(byte[] payload) {
        var crc = new CRC32C();
        crc.update(payload);
        return ByteBuffer.allocate(8 + payload.length).putInt(payload.length).putInt((int) crc.getValue()).put(payload)
                .array();
    }

}
