package io.pgharvest.sink.remotewrite;

import com.google.protobuf.CodedInputStream;
import io.airlift.compress.snappy.SnappyDecompressor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads remote-write requests back (snappy, then protobuf), as a receiver does: for tests. */
final class WriteRequests {

    /** One decoded series: labels in wire order, and its (timestamp ms, value) samples. */
    record DecodedSeries(Map<String, String> labels, List<Long> timestamps, List<Double> values) {
    }

    private WriteRequests() {
    }

    static List<DecodedSeries> decode(byte[] compressed) throws IOException {
        int length = SnappyDecompressor.getUncompressedLength(compressed, 0);
        byte[] raw = new byte[length];
        new SnappyDecompressor().decompress(compressed, 0, compressed.length, raw, 0, length);
        return decodeRaw(raw);
    }

    static List<DecodedSeries> decodeRaw(byte[] raw) throws IOException {
        var all = new ArrayList<DecodedSeries>();
        CodedInputStream in = CodedInputStream.newInstance(raw);
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (tag >>> 3 != 1) {
                in.skipField(tag);
                continue;
            }
            int limit = in.pushLimit(in.readRawVarint32());
            var labels = new LinkedHashMap<String, String>();
            var timestamps = new ArrayList<Long>();
            var values = new ArrayList<Double>();
            int field;
            while ((field = in.readTag()) != 0) {
                int inner = in.pushLimit(in.readRawVarint32());
                if (field >>> 3 == 1) {
                    String name = null;
                    String value = "";
                    int t;
                    while ((t = in.readTag()) != 0) {
                        if (t >>> 3 == 1) {
                            name = in.readString();
                        } else if (t >>> 3 == 2) {
                            value = in.readString();
                        } else {
                            in.skipField(t);
                        }
                    }
                    labels.put(name, value);
                } else if (field >>> 3 == 2) {
                    double value = 0;
                    long timestamp = 0;
                    int t;
                    while ((t = in.readTag()) != 0) {
                        if (t >>> 3 == 1) {
                            value = in.readDouble();
                        } else if (t >>> 3 == 2) {
                            timestamp = in.readInt64();
                        } else {
                            in.skipField(t);
                        }
                    }
                    timestamps.add(timestamp);
                    values.add(value);
                } else {
                    in.skipRawBytes(in.getBytesUntilLimit());
                }
                in.popLimit(inner);
            }
            in.popLimit(limit);
            all.add(new DecodedSeries(labels, timestamps, values));
        }
        return all;
    }
}
