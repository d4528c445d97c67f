package io.pgharvest.sink.jsonfile;

import io.pgharvest.model.Measurement;
import io.pgharvest.sink.JsonValues;
import io.pgharvest.sink.Sink;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Appends one JSON object per measurement per line:
 * {@code {"source":..,"metric":..,"time":"2024-05-17T10:00:00Z","rows":[{..}],"tags":{..}}},
 * each row being its values plus its {@code tag_} columns. A batch is written with one write and
 * cut back if that fails, so a retried batch leaves no partial line. When a batch takes the file
 * past the rotation size it is renamed {@code <file>.1} (older ones shift to {@code .2} ...) and
 * only {@code keptFiles} rotated files are kept. Used by the writer thread only.
 */
public final class JsonLinesSink implements Sink {

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private static final Logger log = LoggerFactory.getLogger(JsonLinesSink.class);

    private final String name;
    private final Path file;
    private final long rotationBytes;
    private final int keptFiles;
    private final JsonFactory factory = JsonFactory.builder().build();
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 * 1024);
    private FileChannel channel;

    private JsonLinesSink(String name, Path file, long rotationBytes, int keptFiles) {
        this.name = name;
        this.file = file;
        this.rotationBytes = rotationBytes;
        this.keptFiles = keptFiles;
    }

    /** A sink writing {@code file}; the file and its directory are created on first write. */
    public static JsonLinesSink create(String name, Path file, JsonFileSinkProperties settings) {
        log.info("JSON lines sink {} writes {}", name, file);
        return new JsonLinesSink(name, file, settings.rotationSize().toBytes(), settings.keptFiles());
    }

    @Override
    public String name() {
        return name;
    }

    /** Ready when the file's folder can be written (the file itself is created by the first write). */
    @Override
    public boolean probe() throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            throw new IOException("cannot write to the folder " + dir);
        }
        return true;
    }

    @Override
    public void write(List<Measurement> batch) throws IOException {
        buffer.reset();
        for (Measurement m : batch) {
            encode(m);
        }
        FileChannel out = open();
        long before = out.size();
        try {
            ByteBuffer bytes = ByteBuffer.wrap(buffer.toByteArray());
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
        } catch (IOException e) {
            cutBack(out, before);
            throw new IOException("writing " + file + " failed: " + e.getMessage(), e);
        }
        if (out.size() >= rotationBytes) {
            rotate();
        }
    }

    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.force(false);
            channel.close();
            channel = null;
        }
    }

    private void encode(Measurement m) {
        try (JsonGenerator json = factory.createGenerator(ObjectWriteContext.empty(), buffer)) {
            json.writeStartObject();
            json.writeStringProperty("source", m.source());
            json.writeStringProperty("metric", m.metric());
            json.writeStringProperty("time", m.time().toString());
            json.writeName("rows");
            json.writeStartArray();
            for (Measurement.Row row : m.rows()) {
                json.writeStartObject();
                row.values().forEach((column, value) -> {
                    json.writeName(column);
                    JsonValues.writeValue(json, value);
                });
                for (Map.Entry<String, String> tag : row.tags().entrySet()) {
                    json.writeStringProperty("tag_" + tag.getKey(),
                            tag.getValue());
                }
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeName("tags");
            JsonValues.writeObject(json, m.tags());
            json.writeEndObject();
        }
        buffer.write('\n');
    }

    private FileChannel open() throws IOException {
        if (channel == null) {
            Files.createDirectories(file.getParent());
            // Measurements may hold query texts and settings: owner-only, like the store and the spill log.
            channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND), PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            Files.setPosixFilePermissions(file, OWNER_ONLY); // also a file an older version created 0644
        }
        return channel;
    }

    private void rotate() throws IOException {
        close();
        Files.deleteIfExists(rotated(keptFiles));
        for (int i = keptFiles - 1; i >= 1; i--) {
            if (Files.exists(rotated(i))) {
                Files.move(rotated(i), rotated(i + 1), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        if (keptFiles > 0) {
            Files.move(file, rotated(1), StandardCopyOption.REPLACE_EXISTING);
        } else {
            Files.delete(file);
        }
    }

    private Path rotated(int generation) {
        return file.resolveSibling(file.getFileName() + "." + generation);
    }

    private void cutBack(FileChannel out, long size) {
        try {
            out.truncate(size);
        } catch (IOException e) {
            log.warn("Sink {}: cannot cut {} back to {} bytes after a failed write; a partial line may remain",
                    name, file, size, e);
        }
    }
}
