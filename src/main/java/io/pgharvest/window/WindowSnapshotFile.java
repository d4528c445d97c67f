package io.pgharvest.window;

import io.pgharvest.window.WindowPicture.SeriesPicture;
import io.pgharvest.window.WindowPicture.SourcePicture;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.Inflater;

/**
 * The window snapshot's file format, version 1: a header of the magic {@code PGHWSNAP}, the
 * version, the CRC-32 of the body, the body's length and its inflated length (all big-endian),
 * then the body, the picture's sources deflated. Times are written as differences to the point
 * before, so deflate finds the collection interval repeated. A file is trusted only whole: magic,
 * version, lengths and checksum are checked before a byte of the body is read, and every count in
 * it is bounded, so a truncated, corrupt or foreign file is refused with what is wrong, never half
 * restored.
 */
final class WindowSnapshotFile {

    static final String FILE_NAME = "window-snapshot.bin";
    private static final byte[] MAGIC = "PGHWSNAP".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 1;
    static final int HEADER_BYTES = MAGIC.length + Integer.BYTES + Integer.BYTES + Long.BYTES + Long.BYTES;
    private static final int MAX_STRING_BYTES = 1 << 20;
    /**
     * What a snapshot may hold beyond the memory bound when read: its names and texts are counted
     * by the budget at other rates than written; what does not fit is refused by the budget then.
     */
    static final long NAMES_HEADROOM = 1 << 20;

    /** Why a snapshot file was not restored. */
    static final class UnreadableSnapshotException extends Exception {
        UnreadableSnapshotException(String reason) {
            super(reason);
        }
    }

    private WindowSnapshotFile() {
    }

    /** The file's bytes for {@code picture}. */
    static byte[] encode(WindowPicture picture) {
        var raw = new ByteArrayOutputStream();
        try (var out = new DataOutputStream(raw)) {
            out.writeLong(picture.takenAtMillis());
            out.writeInt(picture.sources().size());
            for (SourcePicture source : picture.sources()) {
                writeSource(out, source);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        byte[] inflated = raw.toByteArray();
        var deflated = new ByteArrayOutputStream(inflated.length / 4 + 64);
        var deflater = new Deflater(Deflater.BEST_SPEED);
        try (var out = new DeflaterOutputStream(deflated, deflater)) {
            out.write(inflated);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            deflater.end();
        }
        byte[] body = deflated.toByteArray();
        var crc = new CRC32();
        crc.update(body);
        ByteBuffer file = ByteBuffer.allocate(HEADER_BYTES + body.length);
        file.put(MAGIC).putInt(VERSION).putInt((int) crc.getValue()).putLong(body.length).putLong(inflated.length)
                .put(body);
        return file.array();
    }

    private static void writeSource(DataOutputStream out, SourcePicture source) throws IOException {
        writeString(out, source.source());
        out.writeInt(source.series().size());
        for (SeriesPicture series : source.series()) {
            writeString(out, series.key().metric());
            writeString(out, series.key().column());
            out.writeInt(series.key().tags().size());
            for (Map.Entry<String, String> tag : series.key().tags().entrySet()) {
                writeString(out, tag.getKey());
                writeString(out, tag.getValue());
            }
            out.writeInt(series.times().length);
            long before = 0;
            for (long time : series.times()) {
                out.writeLong(time - before);
                before = time;
            }
            for (double value : series.values()) {
                out.writeDouble(value);
            }
        }
        out.writeInt(source.texts().size());
        for (Map.Entry<String, String> text : source.texts().entrySet()) {
            writeString(out, text.getKey());
            writeString(out, text.getValue());
        }
    }

    private static void writeString(DataOutputStream out, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    /**
     * The picture in {@code file}; refused when it is not a whole version-1 snapshot or would
     * inflate past {@code maxInflatedBytes} (the window's memory bound: the window never held more)
     * and {@link #NAMES_HEADROOM}, so a forged length cannot make the reader allocate more.
     */
    static WindowPicture decode(byte[] file, long maxInflatedBytes) throws UnreadableSnapshotException {
        if (file.length < HEADER_BYTES || !Arrays.equals(file, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new UnreadableSnapshotException("not a window snapshot (no PGHWSNAP header)");
        }
        ByteBuffer header = ByteBuffer.wrap(file, MAGIC.length, HEADER_BYTES - MAGIC.length);
        int version = header.getInt();
        int expectedCrc = header.getInt();
        long bodyLength = header.getLong();
        long inflatedLength = header.getLong();
        if (version != VERSION) {
            throw new UnreadableSnapshotException("format version " + version + ", this pgharvest reads " + VERSION);
        }
        if (bodyLength != file.length - HEADER_BYTES) {
            throw new UnreadableSnapshotException("truncated or padded: the header says " + bodyLength
                    + " bytes of body, the file has " + (file.length - HEADER_BYTES));
        }
        var crc = new CRC32();
        crc.update(file, HEADER_BYTES, file.length - HEADER_BYTES);
        if ((int) crc.getValue() != expectedCrc) {
            throw new UnreadableSnapshotException("checksum mismatch: the file is corrupt");
        }
        if (inflatedLength < 0 || inflatedLength > maxInflatedBytes + NAMES_HEADROOM) {
            throw new UnreadableSnapshotException("it holds " + inflatedLength
                    + " bytes, more than the window's memory bound of " + maxInflatedBytes);
        }
        byte[] inflated = inflate(file, (int) inflatedLength);
        try (var in = new DataInputStream(new java.io.ByteArrayInputStream(inflated))) {
            long takenAt = in.readLong();
            int count = count(in, "sources");
            var sources = new ArrayList<SourcePicture>(Math.min(count, 4096));
            for (int i = 0; i < count; i++) {
                sources.add(readSource(in));
            }
            if (in.available() != 0) {
                throw new UnreadableSnapshotException(in.available() + " bytes after the last source");
            }
            return new WindowPicture(takenAt, sources);
        } catch (IOException | IllegalArgumentException e) {
            throw new UnreadableSnapshotException("its body does not parse: " + e.getMessage());
        }
    }

    private static byte[] inflate(byte[] file, int inflatedLength) throws UnreadableSnapshotException {
        var inflater = new Inflater();
        try {
            inflater.setInput(file, HEADER_BYTES, file.length - HEADER_BYTES);
            byte[] inflated = new byte[inflatedLength];
            int done = 0;
            while (done < inflatedLength && !inflater.finished()) {
                int n = inflater.inflate(inflated, done, inflatedLength - done);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    break;
                }
                done += n;
            }
            if (done != inflatedLength || !inflater.finished()) {
                throw new UnreadableSnapshotException("its body inflates to another length than its header says");
            }
            return inflated;
        } catch (DataFormatException e) {
            throw new UnreadableSnapshotException("its body is not deflated data: " + e.getMessage());
        } finally {
            inflater.end();
        }
    }

    private static SourcePicture readSource(DataInputStream in) throws IOException, UnreadableSnapshotException {
        String name = readString(in);
        int seriesCount = count(in, "series");
        var series = new ArrayList<SeriesPicture>(Math.min(seriesCount, 4096));
        for (int s = 0; s < seriesCount; s++) {
            String metric = readString(in);
            String column = readString(in);
            int tagCount = count(in, "tags");
            var tags = new LinkedHashMap<String, String>();
            for (int t = 0; t < tagCount; t++) {
                tags.put(readString(in), readString(in));
            }
            int points = count(in, "points");
            long[] times = new long[points];
            double[] values = new double[points];
            long time = 0;
            for (int p = 0; p < points; p++) {
                time += in.readLong();
                times[p] = time;
            }
            for (int p = 0; p < points; p++) {
                values[p] = in.readDouble();
            }
            series.add(new SeriesPicture(new SeriesKey(metric, column, java.util.Collections.unmodifiableMap(tags)), times, values));
        }
        int textCount = count(in, "texts");
        var texts = new HashMap<String, String>();
        for (int t = 0; t < textCount; t++) {
            texts.put(readString(in), readString(in));
        }
        return new SourcePicture(name, series, texts);
    }

    /** A count of things that follow, each at least one byte: never more than the bytes left. */
    private static int count(DataInputStream in, String what) throws IOException, UnreadableSnapshotException {
        int count = in.readInt();
        if (count < 0 || count > in.available()) {
            throw new UnreadableSnapshotException("a count of " + what + " (" + count + ") the file cannot hold");
        }
        return count;
    }

    private static String readString(DataInputStream in) throws IOException, UnreadableSnapshotException {
        int length = in.readInt();
        if (length < 0 || length > MAX_STRING_BYTES || length > in.available()) {
            throw new UnreadableSnapshotException("a text of " + length + " bytes the file cannot hold");
        }
        return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
}
