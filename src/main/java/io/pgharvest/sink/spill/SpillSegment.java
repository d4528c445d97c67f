package io.pgharvest.sink.spill;

import io.pgharvest.model.Measurement;
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
 * One segment file {@code <id>.spill} of a {@link SpillLog} ({@link SpillRecords} format) and how
 * far it has been delivered. Not thread-safe: used only under the log's lock.
 */
final class SpillSegment {

    private static final Logger log = LoggerFactory.getLogger(SpillSegment.class);
    static final String SUFFIX = ".spill";

    /** Records read from a segment: the measurements, how many were set aside, where reading ended. */
    record Read(List<Measurement> measurements, int skipped, long endOffset) {
    }

    final long id;
    final Path path;
    /** Size of the file. */
    long bytes;
    /** End of the last whole record. */
    long end;
    int records;
    int delivered;
    long readOffset;
    FileChannel appender;
    FileChannel reader;

    private SpillSegment(long id, Path path) {
        this.id = id;
        this.path = path;
    }

    /** Creates the file {@code <id>.spill} in {@code dir}, holding only the magic. */
    static SpillSegment create(Path dir, long id) throws IOException {
        var segment = new SpillSegment(id, dir.resolve(String.format("%019d%s", id, SUFFIX)));
        Files.write(segment.path, SpillRecords.MAGIC, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        segment.bytes = SpillRecords.MAGIC.length;
        segment.end = SpillRecords.MAGIC.length;
        segment.readOffset = SpillRecords.MAGIC.length;
        return segment;
    }

    /**
     * Counts the valid records of a segment an earlier run wrote; a torn or corrupt record ends it.
     *
     * @return null when the file has no valid header (it is moved aside as {@code .corrupt})
     */
    static SpillSegment scan(long id, Path file) throws IOException {
        var segment = new SpillSegment(id, file);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            var magic = ByteBuffer.allocate(SpillRecords.MAGIC.length);
            if (size < SpillRecords.MAGIC.length || !SpillRecords.readFully(channel, magic, 0, size)
                    || !Arrays.equals(magic.array(), SpillRecords.MAGIC)) {
                log.warn("Spill segment {} has no valid header; moving it aside", file);
                Files.move(file, file.resolveSibling(file.getFileName() + ".corrupt"),
                        StandardCopyOption.REPLACE_EXISTING);
                return null;
            }
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
                log.warn("Spill segment {} ends with {} bytes of a torn or corrupt record at offset {}; "
                        + "they are skipped", file, size - offset, offset);
            }
            segment.bytes = size;
            segment.end = offset;
            segment.readOffset = SpillRecords.MAGIC.length;
            return segment;
        }
    }

    int undelivered() {
        return records - delivered;
    }

    /** Opens the channel {@link SpillLog#append} writes through. */
    void openAppender() throws IOException {
        appender = FileChannel.open(path, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    /**
     * Writes whole records through {@code channel} (positioned at the end) without forcing them.
     *
     * @return the bytes written
     */
    long write(FileChannel channel, List<byte[]> records) throws IOException {
        ByteBuffer[] buffers = records.stream().map(ByteBuffer::wrap).toArray(ByteBuffer[]::new);
        long size = records.stream().mapToLong(r -> r.length).sum();
        long written = 0;
        while (written < size) {
            written += channel.write(buffers);
        }
        bytes += size;
        end += size;
        this.records += records.size();
        return size;
    }

    /**
     * Reads up to {@code max} undelivered records from the read position. A record that fails its
     * checksum or cannot be decoded is set aside and skipped; a record without a sane length sets
     * aside the rest of the segment, since the next record cannot be found.
     */
    Read read(int max, SpillCodec codec, SpillQuarantine quarantine) throws IOException {
        if (reader == null) {
            reader = FileChannel.open(path, StandardOpenOption.READ);
        }
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
        return new Read(batch, skipped, offset);
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
