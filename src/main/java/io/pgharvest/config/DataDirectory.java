package io.pgharvest.config;

import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.stereotype.Component;

/**
 * The directory named by {@code pgharvest.data-dir}, created owner-only at start-up when missing.
 * Holds the configuration store's files, the generated API token and the sinks' spill logs; the
 * one value every user of {@code pgharvest.data-dir} is handed, so the setting is bound once.
 */
@Component
public class DataDirectory {

    private final Path path;

    public DataDirectory(HarvestProperties properties) {
        this.path = properties.dataDir().toAbsolutePath().normalize();
        try {
            AtomicFiles.createDirectories(path);
            AtomicFiles.removeStrayTempFiles(path);
        } catch (IOException e) {
            throw new UncheckedIOException("pgharvest.data-dir " + path + " cannot be created or read: " + e, e);
        }
        if (!Files.isWritable(path)) {
            throw new IllegalStateException("pgharvest.data-dir " + path + " is not writable by this process");
        }
    }

    /** The absolute, normalized directory. */
    public Path path() {
        return path;
    }

    public Path resolve(String fileName) {
        return path.resolve(fileName);
    }
}
