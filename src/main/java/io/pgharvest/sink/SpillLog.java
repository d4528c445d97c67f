package io.pgharvest.sink;

import io.pgharvest.model.Measurement;
import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The on-disk part of one sink's queue: measurements kept while the sink cannot take them, in
 * collection order, surviving restarts.
 *
 * <p>Format: append-only segment files {@code <id>.spill} (ids ordered like the data) that start
 * with the 8-byte magic {@code PGHSPIL1}, then records of {@code [u32 length][u32 CRC32C of
 * payload][payload]}, the payload being one {@link SpillCodec} measurement. A torn record at the
 * end of a segment (crash during a write) fails its length or CRC check and ends the segment;
 * everything before it is kept. The file {@code cursor} holds {@code <segment id> <offset>
 * <records>}: how far the partly delivered segment has been delivered; it is replaced atomically after each
 * acknowledged batch, and fully delivered segments are deleted before it is rewritten, so a
 * restart neither loses nor repeats acknowledged records.
 *
 * <p>Every {@link #append} ends with one fsync of the segment it wrote (group commit: the caller
 * gathers what arrived since its last append), so what was appended survives a crash of the
 * process or the machine. A new run never appends to a segment written by an earlier run;
 * {@link #prepend} (for a batch that was taken out of memory and then failed, at runtime or at
 * shutdown) writes a segment with an id below the current head.
 *
 * <p>A record that fails its checksum or cannot be decoded (written by another version, or
 * damaged on disk) is moved to {@code quarantine/} next to the segments and counted, and delivery
 * continues with the next record; a record whose length makes no sense ends the readable part of
 * its segment, and the rest of the segment is quarantined as one file. When the files exceed the bound, whole segments are dropped oldest first,
 * except the segment the writer is delivering from; every dropped measurement is reported.
 *
 * <p>Thread-safe; I/O happens under one lock, which only the sink's writer and spiller take.
 */
final class SpillLog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SpillLog.class);
    private static final byte[] MAGIC = "PGHSPIL1".getBytes(StandardCharsets.US_ASCII);
    private static final int RECORD_HEADER = 8;
    private static final int MAX_RECORD = 256 * 1024 * 1024;
    private static final long FIRST_ID = 1_000_000_000_000L;
    private static final String SUFFIX = ".spill";

    private final Path dir;
    private final long maxBytes;
    private final long segmentBytes;
    private final SpillCodec codec;
    private final LongConsumer onDrop;
    private final LongConsumer onQuarantine;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Segment> segments = new ArrayDeque<>();
    private Segment tail;
    private Segment pinned;
    private long totalBytes;
    private long unread;

    /**
     * A batch read from the log; delivered records are removed by {@link #ack}.
     *
     * @param records how many records of the segment the batch covers: its measurements and the
     *     records that were quarantined instead
     */
    record Batch(List<Measurement> measurements, long segmentId, long endOffset, int records) {
    }

    private static final class Segment {
        final long id;
        final Path path;
        long bytes;
        long end;
        int records;
        int delivered;
        long readOffset;
        FileChannel appender;
        FileChannel reader;

        Segment(long id, Path path) {
            this.id = id;
            this.path = path;
        }

        int undelivered() {
            return records - delivered;
        }
    }

    private SpillLog(Path dir, long maxBytes, long segmentBytes, SpillCodec codec, LongConsumer onDrop,
            LongConsumer onQuarantine) {
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.segmentBytes = segmentBytes;
        this.codec = codec;
        this.onDrop = onDrop;
        this.onQuarantine = onQuarantine;
    }

    /**
     * Opens (creating if needed) the log in {@code dir}, recovering what earlier runs left.
     *
     * @param maxBytes the disk bound; segments are an eighth of it (at most 64 MiB)
     * @param onDrop told how many measurements were dropped, each time some are
     */
    static SpillLog open(Path dir, long maxBytes, SpillCodec codec, LongConsumer onDrop) throws IOException {
        return open(dir, maxBytes, codec, onDrop, count -> { });
    }

    /** As {@link #open(Path, long, SpillCodec, LongConsumer)}; {@code onQuarantine} is told of every record set aside. */
    static SpillLog open(Path dir, long maxBytes, SpillCodec codec, LongConsumer onDrop, LongConsumer onQuarantine)
            throws IOException {
        long segmentBytes = Math.max(1024, Math.min(64L * 1024 * 1024, maxBytes / 8));
        var spill = new SpillLog(dir, maxBytes, segmentBytes, codec, onDrop, onQuarantine);
        spill.recover();
        return spill;
    }

    /** Measurements on disk not yet delivered. */
    long undelivered() {
        lock.lock();
        try {
            return unread;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes of the segment files. */
    long bytes() {
        lock.lock();
        try {
            return totalBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Appends after everything on disk, then drops the oldest segments while over the bound. */
    void append(List<Measurement> measurements) throws IOException {
        if (measurements.isEmpty()) {
            return;
        }
        List<byte[]> records = encode(measurements);
        lock.lock();
        try {
            int i = 0;
            while (i < records.size()) {
                if (tail == null || (tail.records > 0 && tail.bytes + records.get(i).length > segmentBytes)) {
                    startTail();
                }
                int from = i;
                long size = tail.bytes;
                do {
                    size += records.get(i).length;
                    i++;
                } while (i < records.size() && size + records.get(i).length <= segmentBytes);
                write(tail, tail.appender, records.subList(from, i));
            }
            tail.appender.force(false);
            enforceBound();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes a segment that comes before everything on disk: a batch taken from memory (older
     * than all on disk) that could not be delivered. Not while a batch read from the log is out.
     */
    void prepend(List<Measurement> measurements) throws IOException {
        if (measurements.isEmpty()) {
            return;
        }
        List<byte[]> records = encode(measurements);
        lock.lock();
        try {
            long id = segments.isEmpty() ? FIRST_ID : segments.peekFirst().id - 1;
            Segment segment = create(id);
            try (FileChannel channel = FileChannel.open(segment.path, StandardOpenOption.WRITE)) {
                channel.position(segment.bytes);
                write(segment, channel, records);
                channel.force(false);
            }
            segments.addFirst(segment);
            enforceBound();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reads up to {@code max} of the oldest undelivered measurements, or returns null when there
     * are none. The batch's segment is kept from being dropped until {@link #ack} or
     * {@link #release}; only one batch may be out at a time.
     */
    Batch read(int max) throws IOException {
        lock.lock();
        try {
            if (pinned != null) {
                throw new IllegalStateException("a spill batch of " + dir + " is still being delivered");
            }
            Segment head = firstUndelivered();
            if (head == null) {
                return null;
            }
            if (head.reader == null) {
                head.reader = FileChannel.open(head.path, StandardOpenOption.READ);
            }
            var batch = new ArrayList<Measurement>(Math.min(max, head.undelivered()));
            long offset = head.readOffset;
            int skipped = 0;
            var header = ByteBuffer.allocate(RECORD_HEADER);
            while (batch.size() + skipped < max && head.delivered + batch.size() + skipped < head.records) {
                header.clear();
                readFully(head.reader, header, offset);
                int length = header.getInt(0);
                if (length <= 0 || length > MAX_RECORD || offset + RECORD_HEADER + length > head.end) {
                    // Without a sane length the next record cannot be found: set the rest aside.
                    int rest = head.records - head.delivered - batch.size() - skipped;
                    quarantine(head, offset, head.end - offset, rest, "record length " + length + " is impossible");
                    skipped += rest;
                    offset = head.end;
                    break;
                }
                var payload = ByteBuffer.allocate(length);
                readFully(head.reader, payload, offset + RECORD_HEADER);
                if (crc32c(payload.array()) != header.getInt(4)) {
                    quarantine(head, offset, RECORD_HEADER + length, 1, "checksum mismatch");
                    skipped++;
                } else {
                    try {
                        batch.add(codec.decode(payload.array()));
                    } catch (RuntimeException e) {
                        quarantine(head, offset, RECORD_HEADER + length, 1, "cannot be decoded: " + e);
                        skipped++;
                    }
                }
                offset += RECORD_HEADER + length;
            }
            if (batch.isEmpty()) {
                // Only quarantined records: consume them and look again.
                consume(head, skipped, offset);
                return skipped == 0 ? null : read(max);
            }
            pinned = head;
            return new Batch(List.copyOf(batch), head.id, offset, batch.size() + skipped);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Copies {@code length} bytes at {@code offset} of {@code segment} into
     * {@code quarantine/<segment id>-<offset>.record} (owner-only, for inspection) and reports
     * {@code records} set aside. Never throws: a record that cannot even be copied is still
     * skipped, so that delivery goes on.
     */
    private void quarantine(Segment segment, long offset, long length, int records, String reason) {
        Path target = dir.resolve("quarantine").resolve(segment.id + "-" + offset + ".record");
        try {
            AtomicFiles.createDirectories(target.getParent());
            var bytes = ByteBuffer.allocate((int) Math.min(length, MAX_RECORD + RECORD_HEADER));
            readFully(segment.reader, bytes, offset);
            AtomicFiles.write(target, bytes.array());
            log.warn("Spill log {}: {} record(s) at offset {} of segment {} set aside as {}: {}", dir, records, offset,
                    segment.path.getFileName(), target, reason);
        } catch (IOException | RuntimeException e) {
            log.error("Spill log {}: {} record(s) at offset {} of segment {} are skipped ({}); copying them to {} "
                    + "failed", dir, records, offset, segment.path.getFileName(), reason, target, e);
        }
        onQuarantine.accept(records);
    }

    /** Marks a batch from {@link #read} delivered and persists the new position. */
    void ack(Batch batch) throws IOException {
        lock.lock();
        try {
            Segment segment = pinned;
            pinned = null;
            if (segment == null || segment.id != batch.segmentId()) {
                throw new IllegalStateException("acknowledged spill batch is not the one being delivered");
            }
            consume(segment, batch.records(), batch.endOffset());
        } finally {
            lock.unlock();
        }
    }

    /** Records {@code count} records of {@code segment}, up to {@code endOffset}, as done with. */
    private void consume(Segment segment, int count, long endOffset) throws IOException {
        segment.delivered += count;
        segment.readOffset = endOffset;
        unread -= count;
        if (segment.undelivered() == 0 && segment != tail) {
            delete(segment);
        }
        writeCursor();
    }

    /**
     * Drops the oldest segment holding undelivered measurements, for when it cannot be read.
     *
     * @return how many undelivered measurements it held
     */
    int discardHead() throws IOException {
        lock.lock();
        try {
            pinned = null;
            Segment head = firstUndelivered();
            if (head == null) {
                return 0;
            }
            int lost = head.undelivered();
            delete(head);
            if (head == tail) {
                tail = null;
            }
            unread -= lost;
            writeCursor();
            return lost;
        } finally {
            lock.unlock();
        }
    }

    /** Gives a batch back undelivered: it will be read again. */
    void release() {
        lock.lock();
        try {
            pinned = null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            IOException failure = null;
            for (Segment segment : List.copyOf(segments)) {
                try {
                    closeChannels(segment, segment == tail);
                    if (segment.undelivered() == 0) {
                        delete(segment);
                    }
                } catch (IOException e) {
                    failure = failure == null ? e : failure;
                }
            }
            tail = null;
            writeCursor();
            if (failure != null) {
                throw failure;
            }
        } finally {
            lock.unlock();
        }
    }

    private List<byte[]> encode(List<Measurement> measurements) {
        var crc = new CRC32C();
        var records = new ArrayList<byte[]>(measurements.size());
        for (Measurement m : measurements) {
            byte[] payload = codec.encode(m);
            crc.reset();
            crc.update(payload);
            var record = ByteBuffer.allocate(RECORD_HEADER + payload.length);
            record.putInt(payload.length).putInt((int) crc.getValue()).put(payload);
            records.add(record.array());
        }
        return records;
    }

    private void write(Segment segment, FileChannel channel, List<byte[]> records) throws IOException {
        ByteBuffer[] buffers = records.stream().map(ByteBuffer::wrap).toArray(ByteBuffer[]::new);
        long size = records.stream().mapToLong(r -> r.length).sum();
        long written = 0;
        while (written < size) {
            written += channel.write(buffers);
        }
        segment.bytes += size;
        segment.end += size;
        segment.records += records.size();
        totalBytes += size;
        unread += records.size();
    }

    private void startTail() throws IOException {
        if (tail != null) {
            tail.appender.force(false);
            tail.appender.close();
            tail.appender = null;
        }
        long id = segments.isEmpty() ? FIRST_ID : segments.peekLast().id + 1;
        tail = create(id);
        tail.appender = FileChannel.open(tail.path, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        segments.addLast(tail);
    }

    private Segment create(long id) throws IOException {
        var segment = new Segment(id, dir.resolve(String.format("%019d%s", id, SUFFIX)));
        Files.write(segment.path, MAGIC, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        segment.bytes = MAGIC.length;
        segment.end = MAGIC.length;
        segment.readOffset = MAGIC.length;
        totalBytes += MAGIC.length;
        return segment;
    }

    private void enforceBound() throws IOException {
        while (totalBytes > maxBytes) {
            Segment victim = segments.stream().filter(s -> s != pinned).findFirst().orElse(null);
            if (victim == null) {
                return;
            }
            int lost = victim.undelivered();
            closeChannels(victim, false);
            delete(victim);
            if (victim == tail) {
                tail = null;
            }
            unread -= lost;
            writeCursor();
            if (lost > 0) {
                log.warn("Spill log {} is over its bound of {} bytes: dropped {} oldest measurements",
                        dir, maxBytes, lost);
                onDrop.accept(lost);
            }
        }
    }

    private Segment firstUndelivered() throws IOException {
        Segment found = null;
        boolean deleted = false;
        while (!segments.isEmpty()) {
            Segment head = segments.peekFirst();
            if (head.undelivered() > 0) {
                found = head;
                break;
            }
            if (head == tail) {
                break;
            }
            delete(head);
            deleted = true;
        }
        if (deleted) {
            writeCursor();
        }
        return found;
    }

    private void delete(Segment segment) throws IOException {
        closeChannels(segment, false);
        Files.deleteIfExists(segment.path);
        segments.remove(segment);
        totalBytes -= segment.bytes;
    }

    private static void closeChannels(Segment segment, boolean force) throws IOException {
        if (segment.appender != null) {
            if (force) {
                segment.appender.force(false);
            }
            segment.appender.close();
            segment.appender = null;
        }
        if (segment.reader != null) {
            segment.reader.close();
            segment.reader = null;
        }
    }

    /**
     * Records the one partly delivered segment (the read head, or the segment after a prepended
     * one). Rewritten after every deletion, so it never names a deleted id that a later
     * {@link #prepend} could reuse.
     */
    private void writeCursor() throws IOException {
        Path cursor = dir.resolve("cursor");
        Segment head = segments.stream().filter(s -> s.delivered > 0).findFirst().orElse(null);
        if (head == null) {
            Files.deleteIfExists(cursor);
            return;
        }
        Path temp = dir.resolve("cursor.tmp");
        Files.writeString(temp, head.id + " " + head.readOffset + " " + head.delivered + "\n");
        try {
            Files.move(temp, cursor, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, cursor, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private void recover() throws IOException {
        // Spilled measurements may hold query texts and settings: owner-only, like the store.
        AtomicFiles.createDirectories(dir);
        long[] cursor = readCursor();
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).sorted().toList();
        }
        for (Path file : files) {
            String name = file.getFileName().toString();
            long id;
            try {
                id = Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
            } catch (NumberFormatException e) {
                log.warn("Ignoring unexpected file {} in spill directory {}", name, dir);
                continue;
            }
            Segment segment = scan(id, file);
            if (segment == null) {
                continue;
            }
            if (cursor != null && cursor[0] == id) {
                if (cursor[2] <= segment.records && cursor[1] <= segment.end) {
                    segment.delivered = (int) cursor[2];
                    segment.readOffset = cursor[1];
                } else {
                    log.warn("Spill cursor of {} does not match segment {}; delivering it from its start",
                            dir, name);
                }
            }
            if (segment.undelivered() == 0) {
                Files.delete(file);
                continue;
            }
            segments.addLast(segment);
            totalBytes += segment.bytes;
            unread += segment.undelivered();
        }
        writeCursor();
        if (unread > 0) {
            log.info("Spill log {} holds {} undelivered measurements from an earlier run", dir, unread);
        }
        enforceBound();
    }

    /** Counts the valid records of a segment; a torn or corrupt record ends it. */
    private Segment scan(long id, Path file) throws IOException {
        var segment = new Segment(id, file);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            var magic = ByteBuffer.allocate(MAGIC.length);
            if (size < MAGIC.length || !readFully(channel, magic, 0, size)
                    || !Arrays.equals(magic.array(), MAGIC)) {
                log.warn("Spill segment {} has no valid header; moving it aside", file);
                Files.move(file, file.resolveSibling(file.getFileName() + ".corrupt"),
                        StandardCopyOption.REPLACE_EXISTING);
                return null;
            }
            long offset = MAGIC.length;
            var header = ByteBuffer.allocate(RECORD_HEADER);
            while (offset + RECORD_HEADER <= size) {
                header.clear();
                readFully(channel, header, offset, size);
                int length = header.getInt(0);
                if (length <= 0 || length > MAX_RECORD || offset + RECORD_HEADER + length > size) {
                    break;
                }
                var payload = ByteBuffer.allocate(length);
                readFully(channel, payload, offset + RECORD_HEADER, size);
                if (crc32c(payload.array()) != header.getInt(4)) {
                    break;
                }
                offset += RECORD_HEADER + length;
                segment.records++;
            }
            if (offset < size) {
                log.warn("Spill segment {} ends with {} bytes of a torn or corrupt record at offset {}; "
                        + "they are skipped", file, size - offset, offset);
            }
            segment.bytes = size;
            segment.end = offset;
            segment.readOffset = MAGIC.length;
            return segment;
        }
    }

    private long[] readCursor() {
        Path cursor = dir.resolve("cursor");
        if (!Files.exists(cursor)) {
            return null;
        }
        try {
            String[] parts = Files.readString(cursor).strip().split(" ");
            return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2])};
        } catch (IOException | RuntimeException e) {
            log.warn("Unreadable spill cursor {}; delivering every segment from its start", cursor, e);
            return null;
        }
    }

    private static int crc32c(byte[] payload) {
        var crc = new CRC32C();
        crc.update(payload);
        return (int) crc.getValue();
    }

    private static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        if (!readFully(channel, buffer, position, Long.MAX_VALUE)) {
            throw new IOException("unexpected end of spill segment at offset " + position);
        }
    }

    private static boolean readFully(FileChannel channel, ByteBuffer buffer, long position, long limit)
            throws IOException {
        while (buffer.hasRemaining()) {
            if (position >= limit) {
                return false;
            }
            int n = channel.read(buffer, position);
            if (n < 0) {
                return false;
            }
            position += n;
        }
        return true;
    }
}
