package io.pgharvest.sink.spill;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The byte format earlier versions wrote, still read so that an upgrade delivers their spill: the
 * 8-byte magic {@code PGHSPIL1}, then records of {@code [u32 length][u32 CRC32C of payload][payload]},
 * the payload being one {@link SpillCodec} measurement. A damaged length cannot be resynchronised
 * from, which is why new segments are written as {@link SpillFrames}. Also the file reading both
 * formats share. Stateless.
 */
final class SpillRecords {

    static final byte[] MAGIC = "PGHSPIL1".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER = 8;
    static final int MAX_RECORD = 256 * 1024 * 1024;

    private SpillRecords() {
    }

    /** Whether a record of {@code length} at {@code offset} can be whole before {@code end}. */
    static boolean plausible(int length, long offset, long end) {
        return length > 0 && length <= MAX_RECORD && offset + HEADER + length <= end;
    }

    /** Whether {@code payload} matches the checksum of {@code header}. */
    static boolean intact(ByteBuffer header, byte[] payload) {
        var crc = new CRC32C();
        crc.update(payload);
        return (int) crc.getValue() == header.getInt(4);
    }

    static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        if (!readFully(channel, buffer, position, Long.MAX_VALUE)) {
            throw new IOException("unexpected end of spill segment at offset " + position);
        }
    }

    /** @return false when the file (or {@code limit}) ends before the buffer is full */
    static boolean readFully(FileChannel channel, ByteBuffer buffer, long position, long limit)
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
