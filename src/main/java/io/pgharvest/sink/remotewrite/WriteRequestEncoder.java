package io.pgharvest.sink.remotewrite;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.pgharvest.model.Measurement;
import io.pgharvest.sink.SeriesMapping;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * Turns measurements into a remote-write 1.0 {@code WriteRequest} (prometheus/prompb/remote.proto
 * and types.proto), written field by field with protobuf-java's {@link CodedOutputStream}: the four
 * messages used are small and stable, so no generated classes and no protoc at build time.
 *
 * <pre>
 * WriteRequest { repeated TimeSeries timeseries = 1; }
 * TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
 * Label        { string name = 1; string value = 2; }
 * Sample       { double value = 1; int64 timestamp = 2; }   // milliseconds since the epoch
 * </pre>
 *
 * <p>Samples of one series (same name and labels) are gathered into one {@code TimeSeries} and
 * sorted by time (stable), because receivers refuse a sample older than the last one of its series.
 * Labels are sorted by name, {@code __name__} among them, as the protocol requires. Not thread-safe:
 * one encoder per writer.
 */
final class WriteRequestEncoder {

    private static final int TIMESERIES = 1;
    private static final int LABELS = 1;
    private static final int SAMPLES = 2;
    private static final int NAME = 1;
    private static final int VALUE = 2;
    private static final int SAMPLE_VALUE = 1;
    private static final int SAMPLE_TIMESTAMP = 2;
    static final String NAME_LABEL = "__name__";

    /** One series of the request: its sorted label pairs and its samples, in arrival order. */
    private static final class Series {
        final String[] names;
        final String[] values;
        long[] timestamps = new long[1];
        double[] samples = new double[1];
        int count;

        Series(String[] names, String[] values) {
            this.names = names;
            this.values = values;
        }

        void add(long timestamp, double value) {
            if (count == timestamps.length) {
                timestamps = Arrays.copyOf(timestamps, count * 2);
                samples = Arrays.copyOf(samples, count * 2);
            }
            timestamps[count] = timestamp;
            samples[count++] = value;
        }
    }

    private record SeriesKey(String name, SeriesMapping.RowLabels labels) {
    }

    /** An encoded request: the protobuf bytes and how many samples they hold. */
    record Encoded(byte[] bytes, int samples, int series) {
    }

    private final SeriesMapping mapping;

    WriteRequestEncoder(SeriesMapping mapping) {
        this.mapping = mapping;
    }

    Encoded encode(List<Measurement> batch) {
        var bySeries = new HashMap<SeriesKey, Series>();
        var order = new ArrayList<Series>();
        int[] samples = {0};
        for (Measurement m : batch) {
            mapping.remember(m); // texts first: a batch may hold a statement's text and its figures
        }
        for (Measurement m : batch) {
            long timestamp = m.time().toEpochMilli();
            mapping.visit(m, (family, counter, labels, column, value) -> {
                String name = SeriesMapping.seriesName(family, counter);
                Series series = bySeries.computeIfAbsent(new SeriesKey(name, labels), key -> {
                    Series created = withName(name, labels);
                    order.add(created);
                    return created;
                });
                series.add(timestamp, value);
                samples[0]++;
            });
        }
        return new Encoded(write(order), samples[0], order.size());
    }

    /** The row's labels with {@code __name__} inserted at its sorted place. */
    private static Series withName(String name, SeriesMapping.RowLabels labels) {
        int size = labels.size();
        String[] names = new String[size + 1];
        String[] values = new String[size + 1];
        int at = 0;
        while (at < size && labels.names()[at].compareTo(NAME_LABEL) < 0) {
            at++;
        }
        System.arraycopy(labels.names(), 0, names, 0, at);
        System.arraycopy(labels.values(), 0, values, 0, at);
        names[at] = NAME_LABEL;
        values[at] = name;
        System.arraycopy(labels.names(), at, names, at + 1, size - at);
        System.arraycopy(labels.values(), at, values, at + 1, size - at);
        return new Series(names, values);
    }

    private static byte[] write(List<Series> all) {
        int[] sizes = new int[all.size()];
        int total = 0;
        for (int i = 0; i < all.size(); i++) {
            Series series = all.get(i);
            sortByTime(series);
            sizes[i] = seriesSize(series);
            total += CodedOutputStream.computeTagSize(TIMESERIES) + CodedOutputStream.computeUInt32SizeNoTag(sizes[i])
                    + sizes[i];
        }
        byte[] bytes = new byte[total];
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try {
            for (int i = 0; i < all.size(); i++) {
                writeSeries(out, all.get(i), sizes[i]);
            }
            out.checkNoSpaceLeft();
        } catch (IOException e) {
            throw new UncheckedIOException("encoding a remote-write request", e); // sizes computed wrong
        }
        return bytes;
    }

    private static int seriesSize(Series s) {
        int size = 0;
        for (int i = 0; i < s.names.length; i++) {
            int label = labelSize(s.names[i], s.values[i]);
            size += CodedOutputStream.computeTagSize(LABELS) + CodedOutputStream.computeUInt32SizeNoTag(label) + label;
        }
        for (int i = 0; i < s.count; i++) {
            int sample = sampleSize(s.timestamps[i]);
            size += CodedOutputStream.computeTagSize(SAMPLES) + CodedOutputStream.computeUInt32SizeNoTag(sample) + sample;
        }
        return size;
    }

    private static int labelSize(String name, String value) {
        return CodedOutputStream.computeStringSize(NAME, name) + CodedOutputStream.computeStringSize(VALUE, value);
    }

    private static int sampleSize(long timestamp) {
        return CodedOutputStream.computeDoubleSize(SAMPLE_VALUE, 0) + CodedOutputStream.computeInt64Size(SAMPLE_TIMESTAMP,
                timestamp);
    }

    private static void writeSeries(CodedOutputStream out, Series s, int size) throws IOException {
        out.writeTag(TIMESERIES, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        out.writeUInt32NoTag(size);
        for (int i = 0; i < s.names.length; i++) {
            out.writeTag(LABELS, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(labelSize(s.names[i], s.values[i]));
            out.writeString(NAME, s.names[i]);
            out.writeString(VALUE, s.values[i]);
        }
        for (int i = 0; i < s.count; i++) {
            out.writeTag(SAMPLES, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(sampleSize(s.timestamps[i]));
            out.writeDouble(SAMPLE_VALUE, s.samples[i]);
            out.writeInt64(SAMPLE_TIMESTAMP, s.timestamps[i]);
        }
    }

    /** Stable insertion sort by timestamp: a series' samples nearly always arrive in order already. */
    private static void sortByTime(Series s) {
        for (int i = 1; i < s.count; i++) {
            long t = s.timestamps[i];
            double v = s.samples[i];
            int j = i - 1;
            while (j >= 0 && s.timestamps[j] > t) {
                s.timestamps[j + 1] = s.timestamps[j];
                s.samples[j + 1] = s.samples[j];
                j--;
            }
            s.timestamps[j + 1] = t;
            s.samples[j + 1] = v;
        }
    }
}
