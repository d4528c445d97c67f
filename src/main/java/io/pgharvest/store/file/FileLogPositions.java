package io.pgharvest.store.file;

import io.pgharvest.config.DataDirectory;
import io.pgharvest.store.LogPositions;
import io.pgharvest.store.StoreUnavailableException;
import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The log read positions of the file store: {@value #FILE_NAME} in the data directory, one JSON
 * object source -> position, rewritten atomically on each save (a crash leaves the old or the new
 * file, never half of one). Small: one entry per source that collects log insights.
 */
public final class FileLogPositions implements LogPositions {

    static final String FILE_NAME = "log-positions.json";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path file;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, LogPosition> positions;

    public FileLogPositions(DataDirectory directory) {
        this(directory.resolve(FILE_NAME));
    }

    /** Positions in {@code file} (tests; the application's file is in the data directory). */
    public FileLogPositions(Path file) {
        this.file = file;
        this.positions = new HashMap<>(read(file));
    }

    private static Map<String, LogPosition> read(Path file) {
        try {
            return JSON.readValue(Files.readAllBytes(file), new TypeReference<Map<String, LogPosition>>() { });
        } catch (NoSuchFileException e) {
            return Map.of();
        } catch (IOException | JacksonException e) {
            // unreadable positions: every source starts at the end of its log, as on its first read
            return Map.of();
        }
    }

    @Override
    public Optional<LogPosition> find(String source) {
        lock.lock();
        try {
            return Optional.ofNullable(positions.get(source));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void save(String source, LogPosition position) {
        lock.lock();
        try {
            if (position.equals(positions.get(source))) {
                return;
            }
            var next = new TreeMap<>(positions);
            next.put(source, position);
            AtomicFiles.write(file, JSON.writeValueAsBytes(next));
            positions.put(source, position);
        } catch (IOException e) {
            throw new StoreUnavailableException("cannot write the log read positions to " + file + ": " + e, e);
        } finally {
            lock.unlock();
        }
    }
}
