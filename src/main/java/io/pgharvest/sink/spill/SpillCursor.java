package io.pgharvest.sink.spill;

import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file {@code cursor} of a spill directory: {@code <segment id> <offset> <records>}, how far
 * the one partly delivered segment has been delivered. Replaced atomically; absent when no segment
 * is partly delivered. Used under the {@link SpillLog}'s lock only.
 */
record SpillCursor(long segmentId, long offset, long delivered) {

    private static final Logger log = LoggerFactory.getLogger(SpillCursor.class);

    /** The cursor in {@code dir}, or null when there is none or it cannot be read. */
    static SpillCursor read(Path dir) {
        Path cursor = dir.resolve("cursor");
        if (!Files.exists(cursor)) {
            return null;
        }
        try {
            String[] parts = Files.readString(cursor).strip().split(" ");
            return new SpillCursor(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        } catch (IOException | RuntimeException e) {
            log.warn("Unreadable spill cursor {}; delivering every segment from its start", cursor, e);
            return null;
        }
    }

    /** Records {@code segment}'s position in {@code dir}, or removes the cursor when null. */
    static void write(Path dir, SpillSegment segment) throws IOException {
        Path cursor = dir.resolve("cursor");
        if (segment == null) {
            Files.deleteIfExists(cursor);
            return;
        }
        Path temp = dir.resolve("cursor.tmp");
        byte[] line = (segment.id + " " + segment.readOffset + " " + segment.delivered + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        try (FileChannel channel = AtomicFiles.openOwnerOnly(temp, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(line);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
        try {
            Files.move(temp, cursor, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, cursor, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
