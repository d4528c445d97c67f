package io.pgharvest.sink.postgres;

import io.pgharvest.model.Measurement;
import io.pgharvest.sink.JsonValues;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Encodes measurement rows as lines of COPY's text format for the columns
 * {@code (time, dbname, data, tag_data)}: tab-separated, backslash escapes, {@code \N} for null.
 *
 * <p>{@code data} is the row's values; {@code tag_data} the source's tags overlaid with the row's
 * tags (named without the {@code tag_} prefix, as pgwatch stores them), or null when there are none.
 * JSON never contains raw control characters, so only its backslashes need escaping; a
 * backslash byte never occurs inside a multi-byte UTF-8 sequence, so escaping works on bytes.
 * Not thread-safe: one per writer.
 */
final class CopyEncoder {

    static final String COLUMNS = "(time, dbname, data, tag_data)";

    /** No separator between root values: each row's JSON is cut out of the scratch buffer alone. */
    private final JsonFactory factory = JsonFactory.builder().rootValueSeparator((String) null).build();
    private final Scratch scratch = new Scratch();

    /** Appends one line per row of {@code m} to {@code out}; returns the number of rows. */
    int encode(Measurement m, ByteArrayOutputStream out) {
        byte[] time = m.time().toString().getBytes(StandardCharsets.US_ASCII);
        byte[] dbname = m.source().getBytes(StandardCharsets.UTF_8);
        scratch.reset();
        // One generator per measurement, not two per row: creating one allocates its context and
        // takes buffers from the recycler pool.
        try (JsonGenerator json = factory.createGenerator(ObjectWriteContext.empty(), scratch)) {
            for (Measurement.Row row : m.rows()) {
                out.write(time, 0, time.length);
                out.write('\t');
                writeEscaped(out, dbname, dbname.length);
                out.write('\t');
                JsonValues.writeObject(json, row.values());
                cutJson(json, out);
                out.write('\t');
                if (m.tags().isEmpty() && row.tags().isEmpty()) {
                    out.write('\\');
                    out.write('N');
                } else {
                    writeTags(json, m.tags(), row.tags());
                    cutJson(json, out);
                }
                out.write('\n');
            }
        }
        return m.rows().size();
    }

    /** Moves what the generator wrote since the last cut into {@code out}, escaped for COPY. */
    private void cutJson(JsonGenerator json, ByteArrayOutputStream out) {
        json.flush();
        writeEscaped(out, scratch.buffer(), scratch.size());
        scratch.reset();
    }

    /** The source's tags overlaid with the row's, as one object, without merging them into a map first. */
    private static void writeTags(JsonGenerator json, Map<String, String> sourceTags, Map<String, String> rowTags) {
        json.writeStartObject();
        sourceTags.forEach((name, value) -> {
            if (!rowTags.containsKey(name)) {
                json.writeName(JsonValues.clean(name));
                JsonValues.writeValue(json, value);
            }
        });
        rowTags.forEach((name, value) -> {
            json.writeName(JsonValues.clean(name));
            JsonValues.writeValue(json, value);
        });
        json.writeEndObject();
    }

    private static void writeEscaped(ByteArrayOutputStream out, byte[] bytes, int length) {
        int from = 0;
        for (int i = 0; i < length; i++) {
            byte escape = switch (bytes[i]) {
                case '\\' -> '\\';
                case '\n' -> 'n';
                case '\r' -> 'r';
                case '\t' -> 't';
                default -> 0;
            };
            if (escape != 0) {
                out.write(bytes, from, i - from);
                out.write('\\');
                out.write(escape);
                from = i + 1;
            }
        }
        out.write(bytes, from, length - from);
    }

    /** A reusable buffer whose bytes can be read without copying. */
    private static final class Scratch extends ByteArrayOutputStream {
        Scratch() {
            super(1024);
        }

        byte[] buffer() {
            return buf;
        }
    }
}
