package io.pgharvest.sink.postgres;

import io.pgharvest.model.Measurement;
import io.pgharvest.model.RowTags;
import io.pgharvest.model.RowValues;
import io.pgharvest.sink.JsonValues;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.SerializedString;
import tools.jackson.core.json.JsonFactory;

/**
 * Encodes measurement rows as lines of COPY's text format for the columns
 * {@code (time, dbname, data, tag_data)}: tab-separated, backslash escapes, {@code \N} for null.
 *
 * <p>{@code data} is the row's values; {@code tag_data} the row's tags (named without the
 * {@code tag_} prefix, as pgwatch stores them) overlaid with the source's (the operator's tag wins
 * on equal names), or null when there are none.
 * JSON never contains raw control characters, so only its backslashes need escaping; a
 * backslash byte never occurs inside a multi-byte UTF-8 sequence, so escaping works on bytes.
 * Not thread-safe: one per writer.
 */
final class CopyEncoder {

    static final String COLUMNS = "(time, dbname, data, tag_data)";

    /** No separator between root values: each row's JSON is cut out of the scratch buffer alone. */
    private final JsonFactory factory = JsonFactory.builder().rootValueSeparator((String) null).build();
    private final Scratch scratch = new Scratch();
    /**
     * One generator for the writer's life, not one per measurement: creating one allocated its
     * context and took buffers from the recycler pool (8.7 % of the collector's allocation at 60
     * sources on pgwatch's metrics, most measurements having a row or two). It writes root values
     * without separators into the scratch buffer, which every row's cut empties; never closed, as
     * it holds nothing but that buffer. A failure part-way through a value leaves it inside an
     * object, so it is replaced then ({@link #encode}).
     */
    private JsonGenerator json = newGenerator();
    private Instant lastTime;
    private byte[] lastTimeText;
    private String lastSource;
    private byte[] lastSourceText;
    /** The column names last encoded and their encoding: the rows of a result share them. */
    private RowValues.Columns lastColumns;
    private SerializableString[] lastNames;
    /** Row tags whose names were last encoded, and that encoding: the rows of a result share them. */
    private RowTags lastTags;
    private SerializableString[] lastTagNames;

    /** Appends one line per row of {@code m} to {@code out}; returns the number of rows. */
    int encode(Measurement m, ByteArrayOutputStream out) {
        byte[] time = timeText(m.time());
        byte[] dbname = dbnameText(m.source());
        scratch.reset();
        try {
            encodeRows(m, time, dbname, out);
        } catch (RuntimeException e) {
            json = newGenerator();
            scratch.reset();
            throw e;
        }
        return m.rows().size();
    }

    private JsonGenerator newGenerator() {
        return factory.createGenerator(ObjectWriteContext.empty(), scratch);
    }

    private void encodeRows(Measurement m, byte[] time, byte[] dbname, ByteArrayOutputStream out) {
        for (Measurement.Row row : m.rows()) {
            out.write(time, 0, time.length);
            out.write('\t');
            out.write(dbname, 0, dbname.length);
            out.write('\t');
            writeValues(json, row.values());
            cutJson(json, out);
            out.write('\t');
            if (m.tags().isEmpty() && row.tags().isEmpty()) {
                out.write('\\');
                out.write('N');
            } else {
                writeTags(json, m.tags(), RowTags.copyOf(row.tags())); // the same instance: rows hold RowTags
                cutJson(json, out);
            }
            out.write('\n');
        }
    }

    /** The time as COPY text; the measurements of a tick share it, and a batch holds them in a row. */
    private byte[] timeText(Instant time) {
        if (!time.equals(lastTime)) {
            lastTimeText = time.toString().getBytes(StandardCharsets.US_ASCII);
            lastTime = time;
        }
        return lastTimeText;
    }

    /** The source's name as COPY text, escaped; a writer's batch holds a source's measurements in a row. */
    private byte[] dbnameText(String source) {
        if (!source.equals(lastSource)) {
            var escaped = new ByteArrayOutputStream(source.length() + 8);
            byte[] bytes = source.getBytes(StandardCharsets.UTF_8);
            writeEscaped(escaped, bytes, bytes.length);
            lastSourceText = escaped.toByteArray();
            lastSource = source;
        }
        return lastSourceText;
    }

    /**
     * Moves what the generator wrote since the last cut into {@code out}, escaped for COPY. The
     * generator escapes every control character inside JSON strings and writes none between
     * tokens, so a backslash is the only byte of its output that COPY needs escaped: one compare
     * per byte instead of {@link #writeEscaped}'s four (this pass was 4.6 % of the collector's
     * CPU at 300 sources).
     */
    private void cutJson(JsonGenerator json, ByteArrayOutputStream out) {
        json.flush();
        byte[] bytes = scratch.buffer();
        int length = scratch.size();
        int from = 0;
        for (int i = 0; i < length; i++) {
            if (bytes[i] == '\\') {
                out.write(bytes, from, i + 1 - from);
                out.write('\\');
                from = i + 1;
            }
        }
        out.write(bytes, from, length - from);
        scratch.reset();
    }

    /**
     * The row's values as one JSON object. The rows of a result share their column names: those
     * are cleaned and encoded once per result and copied as bytes per row, not cleaned, escaped
     * and encoded for every cell.
     */
    private void writeValues(JsonGenerator json, Map<String, ?> values) {
        if (!(values instanceof RowValues row)) {
            JsonValues.writeObject(json, values);
            return;
        }
        SerializableString[] names = encodedNames(row.columns());
        json.writeStartObject();
        for (int i = 0; i < names.length; i++) {
            json.writeName(names[i]);
            JsonValues.writeValue(json, row.value(i));
        }
        json.writeEndObject();
    }

    private SerializableString[] encodedNames(RowValues.Columns columns) {
        if (columns != lastColumns) {
            lastNames = new SerializableString[columns.size()];
            for (int i = 0; i < lastNames.length; i++) {
                lastNames[i] = new SerializedString(JsonValues.clean(columns.name(i)));
            }
            lastColumns = columns;
        }
        return lastNames;
    }

    /**
     * The row's tags overlaid with the source's, as one object, without merging them into a map
     * first: the operator's tag wins over a row's tag_ column of the same name (docs/sinks.md "Names").
     */
    private void writeTags(JsonGenerator json, Map<String, String> sourceTags, RowTags rowTags) {
        json.writeStartObject();
        // Rows as read share their tag names (RowTags.sharingNames): cleaned and encoded once.
        SerializableString[] names = encodedTagNames(rowTags);
        // An empty Map.of() walks a new entry set and iterator per forEach: skipped, as most
        // sources have no tags of their own.
        boolean sourceHasTags = !sourceTags.isEmpty();
        for (int i = 0; i < names.length; i++) {
            if (!sourceHasTags || !sourceTags.containsKey(rowTags.name(i))) {
                json.writeName(names[i]);
                JsonValues.writeValue(json, rowTags.value(i));
            }
        }
        if (sourceHasTags) {
            sourceTags.forEach((name, value) -> {
                json.writeName(JsonValues.clean(name));
                JsonValues.writeValue(json, value);
            });
        }
        json.writeEndObject();
    }

    private SerializableString[] encodedTagNames(RowTags tags) {
        if (!tags.sharesNamesWith(lastTags)) {
            lastTagNames = new SerializableString[tags.size()];
            for (int i = 0; i < lastTagNames.length; i++) {
                lastTagNames[i] = new SerializedString(JsonValues.clean(tags.name(i)));
            }
            lastTags = tags;
        }
        return lastTagNames;
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
