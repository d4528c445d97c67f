package io.pgharvest.sink.spill;

import io.pgharvest.model.Measurement;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The byte format of spill segments: the 8-byte magic {@code PGHSPIL1}, then records of
 * {@code [u32 length][u32 CRC32C of payload][payload]}, the payload being one {@link SpillCodec}
 * measurement. Stateless.
 */
final class SpillRecords {

    static final byte[] MAGIC = "PGHSPIL1".getBytes(StandardCharsets.US_ASCII);
    static final int HEADER = 8;
    static final int MAX_RECORD = 256 * 1024 * 1024;

    private SpillRecords() {
    }

    /** Each measurement as one record: header and payload. */
    static List<byte[]> encode(SpillCodec codec, List<Measurement> measurements) {
        var crc = new CRC32C();
        var records = new ArrayList<byte[]>(measurements.size());
        for (Measurement m : measurements) {
            byte[] payload = codec.encode(m);
            crc.reset();
            crc.update(payload);
            var record = ByteBuffer.allocate(HEADER + payload.length);
            record.putInt(payload.length).putInt((int) crc.getValue()).put(payload);
            records.add(record.array());
        }
        return records;
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
