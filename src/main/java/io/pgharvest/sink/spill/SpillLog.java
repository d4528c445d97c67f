package io.pgharvest.sink.spill;

import io.pgharvest.model.Measurement;
import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The on-disk part of one sink's queue: measurements kept while the sink cannot take them, in
 * collection order, surviving restarts.
 *
 * <p>Format: append-only segment files {@code <id>.spill} ({@link SpillSegment}; ids ordered like
 * the data) in the {@link SpillFrames} format (segments of the older {@link SpillRecords} format
 * are still read). The file {@code cursor} ({@link SpillCursor}) holds how far the partly delivered
 * segment has been delivered; it is replaced atomically after each acknowledged batch, and fully
 * delivered segments are deleted before it is rewritten, so a restart neither loses nor repeats
 * acknowledged records.
 *
 * <p>Every {@link #append} ends with one fsync of the segment it wrote (group commit: the caller
 * gathers what arrived since its last append), so what was appended survives a crash of the
 * process or the machine. A new run never appends to a segment written by an earlier run;
 * {@link #prepend} (for a batch that was taken out of memory and then failed, at runtime or at
 * shutdown) writes a segment with an id below the current head.
 *
 * <p>Damaged bytes (a torn write at a segment's end, flipped bytes anywhere) run up to the next
 * frame that verifies: they are copied to {@code quarantine/} next to the segments and counted,
 * records and bytes ({@link SpillQuarantine}), and delivery continues with that frame. A record
 * that verifies but cannot be decoded is set aside the same way. In an older segment a record
 * whose length makes no sense ends the readable part (that format cannot resynchronise). When
 * the files exceed the bound, whole segments are dropped oldest first, except the segment the
 * writer is delivering from; every dropped measurement is reported.
 *
 * <p>Thread-safe; I/O happens under one lock, which the sink's writer and spiller take (and a
 * publisher moving memory to disk when the spiller cannot keep up, and health reading the sizes).
 * The segments, the cursor and the quarantine are used only under it.
 */
public final class SpillLog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SpillLog.class);
    private static final long FIRST_ID = 1_000_000_000_000L;

    private final Path dir;
    private final long maxBytes;
    private final long segmentBytes;
    private final SpillCodec codec;
    private final LongConsumer onDrop;
    private final SpillQuarantine quarantine;
    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock, with every field of the segments.
    private final ArrayDeque<SpillSegment> segments = new ArrayDeque<>();
    private SpillSegment tail;
    private SpillSegment pinned;
    private long totalBytes;
    private long unread;

    /** Told of spill records set aside in {@code quarantine/}: how many, and their bytes. */
    @FunctionalInterface
    public interface Losses {
        void quarantined(long records, long bytes);
    }

    /**
     * A batch read from the log; delivered records are removed by {@link #ack}.
     *
     * @param records how many records of the segment the batch covers: its measurements and the
     *     records that were quarantined instead
     */
    public record Batch(List<Measurement> measurements, long segmentId, long endOffset, int records) {
    }

    private SpillLog(Path dir, long maxBytes, long segmentBytes, SpillCodec codec, LongConsumer onDrop,
            Losses onQuarantine) {
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.segmentBytes = segmentBytes;
        this.codec = codec;
        this.onDrop = onDrop;
        this.quarantine = new SpillQuarantine(dir, onQuarantine);
    }

    /**
     * Opens (creating if needed) the log in {@code dir}, recovering what earlier runs left.
     *
     * @param maxBytes the disk bound; segments are an eighth of it (at most 64 MiB)
     * @param onDrop told how many measurements were dropped, each time some are
     */
    public static SpillLog open(Path dir, long maxBytes, SpillCodec codec, LongConsumer onDrop) throws IOException {
        return open(dir, maxBytes, codec, onDrop, (records, bytes) -> { });
    }

    /** As {@link #open(Path, long, SpillCodec, LongConsumer)}; {@code onQuarantine} is told of every record set aside. */
    public static SpillLog open(Path dir, long maxBytes, SpillCodec codec, LongConsumer onDrop, Losses onQuarantine)
            throws IOException {
        long segmentBytes = Math.max(1024, Math.min(64L * 1024 * 1024, maxBytes / 8));
        var spill = new SpillLog(dir, maxBytes, segmentBytes, codec, onDrop, onQuarantine);
        spill.recover();
        return spill;
    }

    /** Measurements on disk not yet delivered. */
    public long undelivered() {
        lock.lock();
        try {
            return unread;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes of the segment files. */
    public long bytes() {
        lock.lock();
        try {
            return totalBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Appends after everything on disk, then drops the oldest segments while over the bound. */
    public void append(List<Measurement> measurements) throws IOException {
        if (measurements.isEmpty()) {
            return;
        }
        List<byte[]> records = encode(measurements);
        lock.lock();
        try {
            int i = 0;
            while (i < records.size()) {
                if (tail == null || (tail.records > 0 && tail.bytes + framed(records.get(i)) > segmentBytes)) {
                    startTail();
                }
                int from = i;
                long size = tail.bytes;
                do {
                    size += framed(records.get(i));
                    i++;
                } while (i < records.size() && size + framed(records.get(i)) <= segmentBytes);
                written(tail.write(tail.appender, records.subList(from, i)), i - from);
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
    public void prepend(List<Measurement> measurements) throws IOException {
        if (measurements.isEmpty()) {
            return;
        }
        List<byte[]> records = encode(measurements);
        lock.lock();
        try {
            SpillSegment segment = create(segments.isEmpty() ? FIRST_ID : segments.peekFirst().id - 1);
            try (FileChannel channel = FileChannel.open(segment.path, StandardOpenOption.WRITE)) {
                channel.position(segment.bytes);
                written(segment.write(channel, records), records.size());
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
     * {@link #release}; only one batch may be out at a time. Records that cannot be read are set
     * aside in {@code quarantine/} and skipped.
     */
    public Batch read(int max) throws IOException {
        lock.lock();
        try {
            if (pinned != null) {
                throw new IllegalStateException("a spill batch of " + dir + " is still being delivered");
            }
            SpillSegment head = firstUndelivered();
            if (head == null) {
                return null;
            }
            SpillSegment.Read read = head.read(max, codec, quarantine);
            if (read.measurements().isEmpty()) {
                // Only quarantined records: consume them and look again.
                consume(head, read.consumed(), read.endOffset());
                return read.consumed() == 0 ? null : read(max);
            }
            pinned = head;
            return new Batch(List.copyOf(read.measurements()), head.id, read.endOffset(), read.consumed());
        } finally {
            lock.unlock();
        }
    }

    /** Marks a batch from {@link #read} delivered and persists the new position. */
    public void ack(Batch batch) throws IOException {
        lock.lock();
        try {
            SpillSegment segment = pinned;
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
    private void consume(SpillSegment segment, int count, long endOffset) throws IOException {
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
    public int discardHead() throws IOException {
        lock.lock();
        try {
            pinned = null;
            SpillSegment head = firstUndelivered();
            return head == null ? 0 : drop(head);
        } finally {
            lock.unlock();
        }
    }

    /** Gives a batch back undelivered: it will be read again. */
    public void release() {
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
            for (SpillSegment segment : List.copyOf(segments)) {
                try {
                    segment.closeChannels(segment == tail);
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

    /** The payloads, encoded outside the lock; a segment frames them when it writes them. */
    private List<byte[]> encode(List<Measurement> measurements) {
        return measurements.stream().map(codec::encode).toList();
    }

    private static long framed(byte[] payload) {
        return SpillFrames.HEADER + payload.length;
    }

    private void written(long bytes, int records) {
        totalBytes += bytes;
        unread += records;
    }

    private void startTail() throws IOException {
        if (tail != null) {
            tail.appender.force(false);
            tail.appender.close();
            tail.appender = null;
        }
        tail = create(segments.isEmpty() ? FIRST_ID : segments.peekLast().id + 1);
        tail.openAppender();
        segments.addLast(tail);
    }

    private SpillSegment create(long id) throws IOException {
        SpillSegment segment = SpillSegment.create(dir, id);
        totalBytes += segment.bytes;
        return segment;
    }

    private void enforceBound() throws IOException {
        while (totalBytes > maxBytes) {
            SpillSegment victim = segments.stream().filter(s -> s != pinned).findFirst().orElse(null);
            if (victim == null) {
                return;
            }
            int lost = drop(victim);
            if (lost > 0) {
                log.warn("Spill log {} is over its bound of {} bytes: dropped {} oldest measurements",
                        dir, maxBytes, lost);
                onDrop.accept(lost);
            }
        }
    }

    /** Deletes a segment with what it still holds; returns how many undelivered measurements that was. */
    private int drop(SpillSegment segment) throws IOException {
        int lost = segment.undelivered();
        delete(segment);
        if (segment == tail) {
            tail = null;
        }
        unread -= lost;
        writeCursor();
        return lost;
    }

    private SpillSegment firstUndelivered() throws IOException {
        SpillSegment found = null;
        boolean deleted = false;
        while (!segments.isEmpty()) {
            SpillSegment head = segments.peekFirst();
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

    private void delete(SpillSegment segment) throws IOException {
        segment.closeChannels(false);
        Files.deleteIfExists(segment.path);
        segments.remove(segment);
        totalBytes -= segment.bytes;
    }

    /**
     * Records the one partly delivered segment (the read head, or the segment after a prepended
     * one). Rewritten after every deletion, so it never names a deleted id that a later
     * {@link #prepend} could reuse.
     */
    private void writeCursor() throws IOException {
        SpillCursor.write(dir, segments.stream().filter(s -> s.delivered > 0).findFirst().orElse(null));
    }

    private void recover() throws IOException {
        // Spilled measurements may hold query texts and settings: owner-only, like the store.
        AtomicFiles.createDirectories(dir);
        for (SpillSegment segment : SpillRecovery.segments(dir)) {
            segments.addLast(segment);
            written(segment.bytes, segment.undelivered());
        }
        writeCursor();
        if (unread > 0) {
            log.info("Spill log {} holds {} undelivered measurements from an earlier run", dir, unread);
        }
        enforceBound();
    }
}
