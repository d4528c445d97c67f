package io.pgharvest.sink.spill;

import io.pgharvest.model.Measurement;
import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One segment file {@code <id>.spill} of a {@link SpillLog} and how far it has been delivered.
 * Segments this version writes are {@link SpillFrames}; segments of the {@link SpillRecords} format
 * that earlier versions left are still read. Not thread-safe: used only under the log's lock.
 */
final class SpillSegment {

    private static final Logger log = LoggerFactory.getLogger(SpillSegment.class);
    static final String SUFFIX = ".spill";

    /**
     * Records read from a segment.
     *
     * @param consumed how many of the segment's records the read went past: the measurements and
     *     the records that were set aside instead
     */
    record Read(List<Measurement> measurements, int consumed, long endOffset) {
    }

    final long id;
    final Path path;
    /** Whether the file is in the {@link SpillFrames} format (else {@link SpillRecords}). */
    final boolean framed;
    /** Size of the file. */
    long bytes;
    /** Where reading stops: the file's end (framed) or the end of the last whole record. */
    long end;
    /** Records the segment holds, damaged ones included where they can be counted. */
    int records;
    int delivered;
    long readOffset;
    FileChannel appender;
    FileChannel reader;

    private SpillSegment(long id, Path path, boolean framed) {
        this.id = id;
        this.path = path;
        this.framed = framed;
    }

    /** Creates the file {@code <id>.spill} in {@code dir}, holding only the magic. */
    static SpillSegment create(Path dir, long id) throws IOException {
        var segment = new SpillSegment(id, dir.resolve(String.format("%019d%s", id, SUFFIX)), true);
        // Owner-only like every file of the data directory: a segment holds collected rows.
        try (FileChannel channel = AtomicFiles.openOwnerOnly(segment.path, StandardOpenOption.CREATE_NEW)) {
            ByteBuffer magic = ByteBuffer.wrap(SpillFrames.MAGIC);
            while (magic.hasRemaining()) {
                channel.write(magic);
            }
        }
        segment.bytes = SpillFrames.MAGIC.length;
        segment.end = SpillFrames.MAGIC.length;
        segment.readOffset = SpillFrames.MAGIC.length;
        return segment;
    }

    /**
     * Counts the records of a segment an earlier run wrote.
     *
     * @return null when the file has no valid header (it is moved aside as {@code .corrupt})
     */
    static SpillSegment scan(long id, Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            var magic = ByteBuffer.allocate(SpillFrames.MAGIC.length);
            boolean whole = SpillRecords.readFully(channel, magic, 0, size);
            if (whole && Arrays.equals(magic.array(), SpillFrames.MAGIC)) {
                return scanFramed(new SpillSegment(id, file, true), channel, size);
            }
            if (whole && Arrays.equals(magic.array(), SpillRecords.MAGIC)) {
                return scanLegacy(new SpillSegment(id, file, false), channel, size);
            }
            log.warn("Spill segment {} has no valid header; moving it aside", file);
        }
        Files.move(file, file.resolveSibling(file.getFileName() + ".corrupt"), StandardCopyOption.REPLACE_EXISTING);
        return null;
    }

    /**
     * Follows the frames to the file's end, resynchronising after damage: the records are counted
     * by the last good frame's index, plus one for damaged bytes after it (a torn write). The
     * damaged bytes themselves are set aside when delivery reaches them.
     */
    private static SpillSegment scanFramed(SpillSegment segment, FileChannel channel, long size) throws IOException {
        long offset = SpillFrames.MAGIC.length;
        int next = 0;
        long damaged = 0;
        while (offset < size) {
            SpillFrames.Frame frame = SpillFrames.at(channel, offset, size);
            if (frame == null || frame.index() < next) {
                frame = SpillFrames.next(channel, offset, size, next);
                if (frame == null) {
                    damaged += size - offset;
                    next++;
                    break;
                }
                damaged += frame.offset() - offset;
            }
            next = frame.index() + 1;
            offset = frame.end();
        }
        if (damaged > 0) {
            log.warn("Spill segment {} holds {} damaged bytes; they are set aside when delivery reaches them and "
                    + "the records after them are delivered", segment.path, damaged);
        }
        segment.records = next;
        segment.bytes = size;
        segment.end = size;
        segment.readOffset = SpillFrames.MAGIC.length;
        return segment;
    }

    /** Counts the valid records of a legacy segment; a torn or corrupt record ends it. */
    private static SpillSegment scanLegacy(SpillSegment segment, FileChannel channel, long size) throws IOException {
        long offset = SpillRecords.MAGIC.length;
        var header = ByteBuffer.allocate(SpillRecords.HEADER);
        while (offset + SpillRecords.HEADER <= size) {
            header.clear();
            SpillRecords.readFully(channel, header, offset, size);
            int length = header.getInt(0);
            if (!SpillRecords.plausible(length, offset, size)) {
                break;
            }
            var payload = ByteBuffer.allocate(length);
            SpillRecords.readFully(channel, payload, offset + SpillRecords.HEADER, size);
            if (!SpillRecords.intact(header, payload.array())) {
                break;
            }
            offset += SpillRecords.HEADER + length;
            segment.records++;
        }
        if (offset < size) {
            log.warn("Spill segment {} (an earlier version's format) ends with {} bytes of a torn or corrupt record "
                    + "at offset {}; they are skipped", segment.path, size - offset, offset);
        }
        segment.bytes = size;
        segment.end = offset;
        segment.readOffset = SpillRecords.MAGIC.length;
        return segment;
    }

    int undelivered() {
        return records - delivered;
    }

    /** Opens the channel {@link SpillLog#append} writes through. */
    void openAppender() throws IOException {
        appender = FileChannel.open(path, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    /**
     * Frames {@code payloads} as the segment's next records and writes them through {@code channel}
     * (positioned at the end) without forcing them.
     *
     * @return the bytes written
     */
    long write(FileChannel channel, List<byte[]> payloads) throws IOException {
        var buffers = new ByteBuffer[payloads.size()];
        long size = 0;
        for (int i = 0; i < buffers.length; i++) {
            byte[] frame = SpillFrames.frame(payloads.get(i), records + i);
            buffers[i] = ByteBuffer.wrap(frame);
            size += frame.length;
        }
        long written = 0;
        while (written < size) {
            written += channel.write(buffers);
        }
        bytes += size;
        end += size;
        this.records += payloads.size();
        return size;
    }

    /**
     * Reads up to {@code max} undelivered records from the read position. Records that cannot be
     * read are set aside and skipped (see {@link #readFramed} and {@link #readLegacy}).
     */
    Read read(int max, SpillCodec codec, SpillQuarantine quarantine) throws IOException {
        if (reader == null) {
            reader = FileChannel.open(path, StandardOpenOption.READ);
        }
        return framed ? readFramed(max, codec, quarantine) : readLegacy(max, codec, quarantine);
    }

    /**
     * A frame that does not verify (or does not carry the next index) starts damaged bytes: they
     * run to the next frame that verifies with a later index, which tells how many records they
     * held, or to the end of the file, which holds the rest. They are set aside as one piece and
     * reading goes on after them.
     */
    private Read readFramed(int max, SpillCodec codec, SpillQuarantine quarantine) throws IOException {
        var batch = new ArrayList<Measurement>(Math.min(max, undelivered()));
        long offset = readOffset;
        int consumed = 0;
        while (consumed < max && delivered + consumed < records && offset < end) {
            int expected = delivered + consumed;
            SpillFrames.Frame frame = SpillFrames.at(reader, offset, end);
            if (frame == null || frame.index() != expected) {
                if (frame == null || frame.index() < expected) {
                    frame = SpillFrames.next(reader, offset, end, expected);
                }
                long damagedEnd = frame == null ? end : frame.offset();
                int lost = (frame == null ? records : frame.index()) - expected;
                quarantine.setAside(this, offset, damagedEnd - offset, lost, frame == null
                        ? "damaged bytes up to the end of the segment"
                        : "damaged bytes before record " + frame.index() + " at offset " + frame.offset());
                consumed += lost;
                offset = damagedEnd;
                if (frame == null) {
                    break;
                }
            }
            try {
                batch.add(codec.decode(frame.payload()));
            } catch (RuntimeException e) {
                quarantine.setAside(this, offset, frame.end() - offset, 1, "cannot be decoded: " + e);
            }
            consumed++;
            offset = frame.end();
        }
        return new Read(batch, consumed, offset);
    }

    /**
     * A record that fails its checksum or cannot be decoded is set aside and skipped; a record
     * without a sane length sets aside the rest of the segment, since this format gives no way to
     * find the next record.
     */
    private Read readLegacy(int max, SpillCodec codec, SpillQuarantine quarantine) throws IOException {
        var batch = new ArrayList<Measurement>(Math.min(max, undelivered()));
        long offset = readOffset;
        int skipped = 0;
        var header = ByteBuffer.allocate(SpillRecords.HEADER);
        while (batch.size() + skipped < max && delivered + batch.size() + skipped < records) {
            header.clear();
            SpillRecords.readFully(reader, header, offset);
            int length = header.getInt(0);
            if (!SpillRecords.plausible(length, offset, end)) {
                int rest = records - delivered - batch.size() - skipped;
                quarantine.setAside(this, offset, end - offset, rest, "record length " + length + " is impossible");
                skipped += rest;
                offset = end;
                break;
            }
            var payload = ByteBuffer.allocate(length);
            SpillRecords.readFully(reader, payload, offset + SpillRecords.HEADER);
            if (!SpillRecords.intact(header, payload.array())) {
                quarantine.setAside(this, offset, SpillRecords.HEADER + length, 1, "checksum mismatch");
                skipped++;
            } else {
                try {
                    batch.add(codec.decode(payload.array()));
                } catch (RuntimeException e) {
                    quarantine.setAside(this, offset, SpillRecords.HEADER + length, 1, "cannot be decoded: " + e);
                    skipped++;
                }
            }
            offset += SpillRecords.HEADER + length;
        }
        return new Read(batch, batch.size() + skipped, offset);
    }

    /** Closes the file's channels, forcing what was appended first when asked. */
    void closeChannels(boolean force) throws IOException {
        if (appender != null) {
            if (force) {
                appender.force(false);
            }
            appender.close();
            appender = null;
        }
        if (reader != null) {
            reader.close();
            reader = null;
        }
    }
}
