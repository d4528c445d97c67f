package io.pgharvest.sink.spill;

import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets aside spill records that cannot be read: copies their bytes to
 * {@code quarantine/<segment id>-<offset>.record} next to the segments (owner-only, for
 * inspection) and reports how many records and bytes were set aside. Used under the
 * {@link SpillLog}'s lock only.
 */
final class SpillQuarantine {

    private static final Logger log = LoggerFactory.getLogger(SpillQuarantine.class);

    private final Path dir;
    private final SpillLog.Losses losses;

    SpillQuarantine(Path dir, SpillLog.Losses losses) {
        this.dir = dir;
        this.losses = losses;
    }

    /**
     * Copies {@code length} bytes at {@code offset} of {@code segment} and reports {@code records}
     * set aside. Never throws: a record that cannot even be copied is still skipped, so that
     * delivery goes on.
     */
    void setAside(SpillSegment segment, long offset, long length, int records, String reason) {
        losses.quarantined(records, length);
        if (length == 0) {
            log.warn("Spill log {}: {} record(s) missing before offset {} of segment {}: {}", dir, records, offset,
                    segment.path.getFileName(), reason);
            return;
        }
        Path target = dir.resolve("quarantine").resolve(segment.id + "-" + offset + ".record");
        try {
            AtomicFiles.createDirectories(target.getParent());
            var bytes = ByteBuffer.allocate((int) Math.min(length, SpillRecords.MAX_RECORD + SpillRecords.HEADER));
            SpillRecords.readFully(segment.reader, bytes, offset);
            AtomicFiles.write(target, bytes.array());
            log.warn("Spill log {}: {} record(s) at offset {} of segment {} set aside as {}: {}", dir, records, offset,
                    segment.path.getFileName(), target, reason);
        } catch (IOException | RuntimeException e) {
            log.error("Spill log {}: {} record(s) at offset {} of segment {} are skipped ({}); copying them to {} "
                    + "failed", dir, records, offset, segment.path.getFileName(), reason, target, e);
        }
    }
}
