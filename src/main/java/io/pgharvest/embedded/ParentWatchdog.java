package io.pgharvest.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Stops an embedded server when the JVM that started it dies, even by SIGKILL (no shutdown hook
 * runs then): a small shell process polls the JVM's pid once a second and, once it is gone, sends
 * the postmaster SIGQUIT (immediate shutdown; the next start of a kept cluster recovers from its WAL)
 * and removes the instance directory, unless it is kept. A normal close
 * stops the watchdog first.
 */
public final class ParentWatchdog implements AutoCloseable {

    private static final String SCRIPT = """
            while kill -0 "$1" 2>/dev/null; do sleep 1; done
            kill -QUIT "$2" 2>/dev/null
            n=0; while kill -0 "$2" 2>/dev/null && [ $n -lt 30 ]; do sleep 1; n=$((n+1)); done
            [ -z "$3" ] || rm -rf "$3"
            """;

    private final Process process;

    private ParentWatchdog(Process process) {
        this.process = process;
    }

    /**
     * Watches this JVM on behalf of the postmaster {@code postmasterPid} whose files are under
     * {@code instanceDir}; null keeps the files (a server whose data outlives the JVM).
     */
    public static ParentWatchdog start(long postmasterPid, Path instanceDir) {
        try {
            Process process = new ProcessBuilder(List.of("/bin/sh", "-c", SCRIPT, "pgharvest-watchdog",
                    Long.toString(ProcessHandle.current().pid()), Long.toString(postmasterPid), instanceDir == null ? "" : instanceDir.toString()))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            return new ParentWatchdog(process);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start the watchdog of the embedded PostgreSQL", e);
        }
    }

    /** The postmaster's pid, from the first line of {@code postmaster.pid} in {@code dataDir}. */
    public static long postmasterPid(Path dataDir) {
        try {
            return Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).getFirst().strip());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("Cannot read the postmaster's pid in " + dataDir, e);
        }
    }

    @Override
    public void close() {
        process.destroy();
    }
}
