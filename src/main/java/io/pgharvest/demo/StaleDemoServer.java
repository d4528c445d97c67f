package io.pgharvest.demo;

import io.pgharvest.embedded.EmbeddedPostgres;
import io.pgharvest.support.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers the running demo server in a marker file ({@code <postmaster pid> <instance dir>}),
 * so that a server left behind by a crash that also took its watchdog is stopped and removed at
 * the next start of the demo.
 */
final class StaleDemoServer {

    private static final Logger log = LoggerFactory.getLogger(StaleDemoServer.class);
    /** Only directories the embedded launcher created are ever removed. */
    private static final String INSTANCE_PREFIX = "pgharvest-pg-";

    private StaleDemoServer() {
    }

    static void record(Path marker, EmbeddedPostgres server) {
        try {
            AtomicFiles.write(marker, (server.postmasterPid() + " " + server.instanceDir() + "\n")
                    .getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + marker, e);
        }
    }

    static void forget(Path marker) {
        try {
            Files.deleteIfExists(marker);
        } catch (IOException e) {
            log.warn("Cannot remove {}: {}", marker, e.getMessage());
        }
    }

    /** Stops and removes the server named by {@code marker}, if it is still there. */
    static void removeIfAny(Path marker) {
        if (!Files.exists(marker)) {
            return;
        }
        try {
            String[] parts = Files.readString(marker).strip().split(" ", 2);
            long pid = Long.parseLong(parts[0]);
            Path instanceDir = Path.of(parts[1]);
            ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false))
                    .ifPresent(StaleDemoServer::stop);
            if (instanceDir.getFileName().toString().startsWith(INSTANCE_PREFIX) && Files.isDirectory(instanceDir)) {
                try (Stream<Path> tree = Files.walk(instanceDir)) {
                    tree.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
                }
                log.info("Demo profile: removed the embedded PostgreSQL left behind in {}", instanceDir);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("Demo profile: cannot clean up the server named in {}: {}", marker, e.toString());
        }
        forget(marker);
    }

    private static void stop(ProcessHandle postmaster) {
        log.info("Demo profile: stopping the embedded PostgreSQL (pid {}) left running by an earlier crash",
                postmaster.pid());
        postmaster.destroy();
        try {
            postmaster.onExit().get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            postmaster.destroyForcibly();
        }
    }
}
