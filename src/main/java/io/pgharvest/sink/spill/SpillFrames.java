package io.pgharvest.sink.spill;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The byte format of spill segments this version writes: the 8-byte magic {@code PGHSPIL2}, then
 * frames of {@code [u32 sync marker][u32 length][u32 index][u32 CRC32C][payload]} (big-endian),
 * the index counting the segment's records from 0 and the checksum covering length, index and
 * payload. Stateless.
 *
 * <p>Why each part: a damaged length can no longer hide every later record, because a reader that
 * meets a frame it cannot verify scans forward for the next marker whose frame verifies; the
 * marker starts with {@code 0xF5}, a byte that never occurs in UTF-8, so it never occurs inside a
 * payload (JSON text); the index tells exactly how many records the damaged bytes held.
 */
final class SpillFrames {

    static final byte[] MAGIC = "PGHSPIL2".getBytes(StandardCharsets.US_ASCII);
    static final int MARKER = 0xF5A17C3E;
    static final int HEADER = 16;
    private static final int SCAN_CHUNK = 64 * 1024;

    /** A frame whose checksum verified. */
    record Frame(long offset, int index, byte[] payload) {
        long end() {
            return offset + HEADER + payload.length;
        }
    }

    private SpillFrames() {
    }

    /** Frames {@code payload} as record {@code index} of its segment. */
    static byte[] frame(byte[] payload, int index) {
        var frame = ByteBuffer.allocate(HEADER + payload.length);
        frame.putInt(MARKER).putInt(payload.length).putInt(index).putInt(0).put(payload);
        frame.putInt(12, checksum(frame.array(), payload.length));
        return frame.array();
    }

    /** The frame starting at {@code offset} if it is whole before {@code end} and verifies, else null. */
    static Frame at(FileChannel channel, long offset, long end) throws IOException {
        if (offset + HEADER > end) {
            return null;
        }
        var header = ByteBuffer.allocate(HEADER);
        if (!SpillRecords.readFully(channel, header, offset, end) || header.getInt(0) != MARKER) {
            return null;
        }
        int length = header.getInt(4);
        if (length <= 0 || length > SpillRecords.MAX_RECORD || offset + HEADER + length > end) {
            return null;
        }
        var whole = ByteBuffer.allocate(HEADER + length).put(header.array());
        if (!SpillRecords.readFully(channel, whole, offset + HEADER, end)
                || checksum(whole.array(), length) != header.getInt(12)) {
            return null;
        }
        byte[] payload = new byte[length];
        System.arraycopy(whole.array(), HEADER, payload, 0, length);
        return new Frame(offset, header.getInt(8), payload);
    }

    /**
     * The first verified frame that starts after {@code from} and carries an index of at least
     * {@code minIndex}, or null when none does before {@code end}. Reads the file in chunks, so
     * damage costs one pass over the bytes up to the next good frame.
     */
    static Frame next(FileChannel channel, long from, long end, int minIndex) throws IOException {
        byte first = (byte) (MARKER >>> 24);
        var chunk = ByteBuffer.allocate(SCAN_CHUNK);
        for (long base = from + 1; base + HEADER <= end; base += SCAN_CHUNK - 3) {
            chunk.clear();
            chunk.limit((int) Math.min(SCAN_CHUNK, end - base));
            SpillRecords.readFully(channel, chunk, base, end);
            byte[] bytes = chunk.array();
            for (int i = 0; i + 3 < chunk.limit(); i++) {
                if (bytes[i] == first && ByteBuffer.wrap(bytes, i, 4).getInt() == MARKER) {
                    Frame frame = at(channel, base + i, end);
                    if (frame != null && frame.index() >= minIndex) {
                        return frame;
                    }
                }
            }
        }
        return null;
    }

    /** CRC32C of length, index and payload of the frame in {@code frame}. */
    private static int checksum(byte[] frame, int length) {
        var crc = new CRC32C();
        crc.update(frame, 4, 8);
        crc.update(frame, HEADER, length);
        return (int) crc.getValue();
    }
}
