package io.pgharvest.testsupport;

import io.pgharvest.api.ApiClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * pgharvest in a JVM of its own on the test's classpath, so a test can {@code kill -9} it (nothing
 * is flushed, no shutdown hook runs), stop it gracefully, or run several of them as a fleet. Its
 * output goes to {@code pgharvest.log} in its data directory.
 */
public final class PgharvestProcess implements AutoCloseable {

    public static final String TOKEN = "process-test-token-0123456789";

    private final Path dataDir;
    private final int port;
    private final Process process;

    private PgharvestProcess(Path dataDir, int port, Process process) {
        this.dataDir = dataDir;
        this.port = port;
        this.process = process;
    }

    /** Starts on a free port with {@link #TOKEN} and {@code --property=value} arguments; answers once the API does. */
    public static PgharvestProcess start(Path dataDir, String... arguments) {
        PgharvestProcess started = launch(dataDir, arguments);
        started.awaitApi(Duration.ofSeconds(120));
        return started;
    }

    /**
     * Starts like {@link #start} but returns at once, before the API answers: several processes
     * (a fleet) then start side by side.
     */
    public static PgharvestProcess launch(Path dataDir, String... arguments) {
        try {
            int port;
            try (var socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            var command = new ArrayList<String>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                    "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                    "-cp", System.getProperty("java.class.path"), "io.pgharvest.PgharvestApplication",
                    "--server.port=" + port, "--spring.main.banner-mode=off",
                    "--pgharvest.data-dir=" + dataDir, "--pgharvest.api.token=" + TOKEN,
                    // The test servers' login is their superuser (the surefire setting does not reach a child).
                    "--pgharvest.security.allow-superuser-sources=true"));
            command.addAll(List.of(arguments));
            Files.createDirectories(dataDir);
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dataDir.resolve("pgharvest.log").toFile())).start();
            return new PgharvestProcess(dataDir, port, process);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitApi(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("pgharvest exited with " + process.exitValue() + ": " + log());
            }
            try {
                if (api().get("/api/v1/status").status() == 200) {
                    return;
                }
            } catch (RuntimeException notYet) {
                // not listening yet
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("pgharvest's API did not answer within " + timeout + ": " + log());
    }

    public ApiClient api() {
        return new ApiClient(port, TOKEN);
    }

    /** What the process wrote to its log so far (every start on this data directory appends). */
    public String log() {
        try {
            return Files.readString(dataDir.resolve("pgharvest.log"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path dataDir() {
        return dataDir;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGTERM, then waits for the graceful shutdown to finish. */
    public void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("pgharvest in " + dataDir + " did not stop within 90 s");
        }
    }

    /** kill -9: nothing is handed back, nothing flushed. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
