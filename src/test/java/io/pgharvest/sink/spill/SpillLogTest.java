package io.pgharvest.sink.spill;

import io.pgharvest.sink.RecordingSink;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.pgharvest.model.Measurement;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("fast")
class SpillLogTest {

    @TempDir
    Path dir;

    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong quarantined = new AtomicLong();
    private final AtomicLong quarantinedBytes = new AtomicLong();

    @Test
    void aTornRecordAtTheEndOfASegmentIsSetAsideAsOneLostRecordAndEverythingBeforeItIsKept() throws IOException {
        try (SpillLog spill = open(1024 * 1024)) {
            spill.append(measurements(1, 10));
        }
        Path segment = onlySegment();
        // A crash in the middle of a record: a frame header promising more bytes than follow.
        byte[] torn = {(byte) 0xF5, (byte) 0xA1, 0x7C, 0x3E, 0, 0, 0, 100, 0, 0, 0, 10, 1, 2, 3, 4, '{', '"'};
        Files.write(segment, torn, StandardOpenOption.APPEND);

        try (SpillLog spill = open(1024 * 1024)) {
            assertThat(spill.undelivered()).as("the ten and the torn one").isEqualTo(11);
            assertThat(sequences(drain(spill))).containsExactlyElementsOf(range(1, 10));
            assertThat(spill.undelivered()).isZero();
        }
        assertThat(quarantined.get()).isEqualTo(1);
        assertThat(quarantinedBytes.get()).isEqualTo(torn.length);
    }

    @Test
    void aRecordWhosePayloadDoesNotMatchItsChecksumIsSetAsideAlone() throws IOException {
        try (SpillLog spill = open(1024 * 1024)) {
            spill.append(measurements(1, 3));
        }
        Path segment = onlySegment();
        byte[] bytes = Files.readAllBytes(segment);
        bytes[bytes.length - 3] ^= 0x20; // flip a bit inside the last record's payload
        Files.write(segment, bytes);

        try (SpillLog spill = open(1024 * 1024)) {
            assertThat(sequences(drain(spill))).containsExactly(1L, 2L);
        }
        assertThat(quarantined.get()).isEqualTo(1);
    }

    @Test
    void aDamagedLengthInTheMiddleLosesOnlyItsRecordWhileTheLogIsOpen() throws IOException {
        try (SpillLog spill = open(1024 * 1024)) {
            spill.append(measurements(1, 20));
            byte[] bytes = Files.readAllBytes(onlySegment());
            // The length field of record 10 (index 9) made huge: an older format lost the rest here.
            long offset = frameOffset(bytes, 9);
            bytes[(int) offset + 4] = 0x7f;
            Files.write(onlySegment(), bytes);

            assertThat(sequences(drain(spill))).containsExactlyElementsOf(
                    LongStream.rangeClosed(1, 20).filter(seq -> seq != 10).boxed().toList());
            assertThat(spill.undelivered()).isZero();
        }
        assertThat(quarantined.get()).isEqualTo(1);
        assertThat(dir.resolve("quarantine")).isNotEmptyDirectory();
    }

    @Test
    void damageAcrossSeveralRecordsCountsEachOfThemByTheIndexOfTheNextGoodOne() throws IOException {
        try (SpillLog spill = open(1024 * 1024)) {
            spill.append(measurements(1, 20));
        }
        byte[] bytes = Files.readAllBytes(onlySegment());
        long fifth = frameOffset(bytes, 4);
        long ninth = frameOffset(bytes, 8);
        long tenth = frameOffset(bytes, 9);
        // From inside record 5's payload into record 9's marker.
        for (long i = fifth + 20; i < ninth + 2; i++) {
            bytes[(int) i] = 0;
        }
        Files.write(onlySegment(), bytes);

        try (SpillLog spill = open(1024 * 1024)) {
            assertThat(sequences(drain(spill))).containsExactlyElementsOf(
                    LongStream.rangeClosed(1, 20).filter(seq -> seq < 5 || seq > 9).boxed().toList());
        }
        assertThat(quarantined.get()).as("records 5 to 9").isEqualTo(5);
        assertThat(quarantinedBytes.get()).as("from record 5 to record 10").isEqualTo(tenth - fifth);
    }

    @Test
    void theCursorKeepsAcknowledgedRecordsFromBeingReadAgainAfterReopening() throws IOException {
        try (SpillLog spill = open(1024 * 1024)) {
            spill.append(measurements(1, 10));
            spill.ack(spill.read(4));
        }
        try (SpillLog spill = open(1024 * 1024)) {
            assertThat(spill.undelivered()).isEqualTo(6);
            assertThat(sequences(drain(spill))).containsExactlyElementsOf(range(5, 10));
        }
        assertThat(dir.resolve("cursor")).doesNotExist();
        try (var files = Files.list(dir)) {
            assertThat(files.filter(p -> p.toString().endsWith(".spill"))).isEmpty();
        }
    }

    @Test
    void aPrependedBatchIsReadBeforeEverythingElseAcrossARestart() throws IOException {
        try (SpillLog spill = open(1024 * 1024)) {
            spill.append(measurements(11, 20));
            spill.ack(spill.read(3));
            spill.prepend(measurements(1, 10));
        }
        try (SpillLog spill = open(1024 * 1024)) {
            assertThat(sequences(drain(spill))).containsExactlyElementsOf(
                    LongStream.concat(LongStream.rangeClosed(1, 10), LongStream.rangeClosed(14, 20)).boxed().toList());
        }
    }

    @Test
    void overTheBoundWholeOldestSegmentsAreDroppedAndCounted() throws IOException {
        try (SpillLog spill = open(16 * 1024)) {
            spill.append(measurements(1, 1000));

            assertThat(spill.bytes()).isLessThanOrEqualTo(16 * 1024);
            List<Measurement> left = drain(spill);
            assertThat(dropped.get()).isEqualTo(1000 - left.size()).isPositive();
            assertThat(sequences(left)).containsExactlyElementsOf(range(1001 - left.size(), 1000));
        }
    }

    @Test
    void valuesSurviveTheRoundTripWithTheirDigitsAndNanBecomesNull() throws IOException {
        var values = new LinkedHashMap<String, Object>();
        values.put("big", new BigDecimal("12345678901234567890.123456789"));
        values.put("count", 42L);
        values.put("ratio", 0.25);
        values.put("nan", Double.NaN);
        values.put("name", "pg\u0000data");
        values.put("flag", true);
        values.put("missing", null);
        var m = new Measurement("db 1", "metric", Instant.parse("2024-05-17T10:00:00.123456789Z"),
                List.of(new Measurement.Row(values, Map.of("table", "t1"))), Map.of("env", "prod"));
        try (SpillLog spill = open(1024 * 1024)) {
            spill.append(List.of(m));
            Measurement back = spill.read(10).measurements().getFirst();

            assertThat(back.source()).isEqualTo("db 1");
            assertThat(back.time()).isEqualTo(m.time());
            assertThat(back.tags()).isEqualTo(Map.of("env", "prod"));
            Measurement.Row row = back.rows().getFirst();
            assertThat(row.tags()).isEqualTo(Map.of("table", "t1"));
            assertThat(row.values()).containsExactly(
                    entry("big", new BigDecimal("12345678901234567890.123456789")),
                    entry("count", 42),
                    entry("ratio", new BigDecimal("0.25")),
                    entry("nan", null),
                    entry("name", "pg\uFFFDdata"),
                    entry("flag", true),
                    entry("missing", null));
        }
    }

    @Test
    void segmentsAndTheCursorAreReadableByTheirOwnerOnly() throws IOException {
        try (SpillLog spill = open(1024 * 1024)) {
            spill.append(measurements(1, 10));
            SpillLog.Batch batch = spill.read(3);
            spill.ack(batch); // a partly delivered segment: the cursor records where delivery stands
            assertThat(spill.undelivered()).isEqualTo(7);
        }
        try (var files = Files.list(dir)) {
            var modes = files.collect(java.util.stream.Collectors.toMap(p -> p.getFileName().toString(),
                    p -> permissions(p)));
            assertThat(modes).containsKey("cursor").hasSizeGreaterThanOrEqualTo(2)
                    .allSatisfy((name, mode) -> assertThat(mode).as(name).isEqualTo("rw-------"));
        }
    }

    @Test
    void aSegmentAnOlderVersionLeftReadableByOthersIsMadeOwnerOnlyWhenTheLogOpens() throws IOException {
        try (SpillLog spill = open(1024 * 1024)) {
            spill.append(measurements(1, 3));
        }
        Path segment = onlySegment();
        Files.setPosixFilePermissions(segment, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        try (SpillLog spill = open(1024 * 1024)) {
            assertThat(spill.undelivered()).isEqualTo(3);
        }
        assertThat(permissions(segment)).isEqualTo("rw-------");
    }

    private static String permissions(Path file) {
        try {
            return java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private SpillLog open(long maxBytes) throws IOException {
        return SpillLog.open(dir, maxBytes, new SpillCodec(), dropped::addAndGet, (records, bytes) -> {
            quarantined.addAndGet(records);
            quarantinedBytes.addAndGet(bytes);
        });
    }

    /** Where the frame of record {@code index} starts, following the lengths of the intact frames before it. */
    private static long frameOffset(byte[] segment, int index) {
        var buffer = java.nio.ByteBuffer.wrap(segment);
        int offset = SpillFrames.MAGIC.length;
        for (int i = 0; i < index; i++) {
            offset += SpillFrames.HEADER + buffer.getInt(offset + 4);
        }
        return offset;
    }

    private Path onlySegment() throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".spill")).findFirst().orElseThrow();
        }
    }

    private static List<Measurement> drain(SpillLog spill) throws IOException {
        var all = new ArrayList<Measurement>();
        SpillLog.Batch batch;
        while ((batch = spill.read(3)) != null) {
            all.addAll(batch.measurements());
            spill.ack(batch);
        }
        return all;
    }

    private static List<Measurement> measurements(long from, long to) {
        return LongStream.rangeClosed(from, to).mapToObj(RecordingSink::measurement).toList();
    }

    private static List<Long> sequences(List<Measurement> measurements) {
        return measurements.stream().map(RecordingSink::seq).toList();
    }

    private static List<Long> range(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }
}
