package io.pgharvest.sink.prometheus;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Prometheus' own {@code promtool}, the reference parser of the text exposition format. Installed
 * from Debian's {@code prometheus} package when missing (the tests run as root); callers skip with
 * {@link #unavailableReason()} when that is impossible.
 */
final class Promtool {

    private static final List<Path> CANDIDATES = List.of(Path.of("/usr/bin/promtool"), Path.of("/usr/local/bin/promtool"));
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static String unavailable;
    private static Path binary;

    private Promtool() {
    }

    /** What {@code promtool check metrics} said and its exit code (0: parses and lint-clean). */
    record Check(int exitCode, String output) {
    }

    /** Null when promtool is available (installing it if needed), else why not. */
    static String unavailableReason() {
        LOCK.lock();
        try {
            if (binary == null && unavailable == null) {
                locateOrInstall();
            }
            return unavailable;
        } finally {
            LOCK.unlock();
        }
    }

    static Check checkMetrics(String exposition) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(binary.toString(), "check", "metrics").redirectErrorStream(true).start();
        process.getOutputStream().write(exposition.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("promtool did not finish within 60 s");
        }
        return new Check(process.exitValue(), output);
    }

    private static void locateOrInstall() {
        binary = find();
        if (binary != null) {
            return;
        }
        try {
            String install = run("apt-get", "install", "-y", "--no-install-recommends", "prometheus");
            binary = find();
            if (binary == null) {
                run("apt-get", "update");
                install = run("apt-get", "install", "-y", "--no-install-recommends", "prometheus");
                binary = find();
            }
            if (binary == null) {
                unavailable = "promtool not found after 'apt-get install prometheus': " + tail(install);
            }
        } catch (IOException e) {
            unavailable = "cannot install Debian's prometheus package for promtool: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            unavailable = "interrupted while installing promtool";
        }
    }

    private static Path find() {
        return CANDIDATES.stream().filter(Files::isExecutable).findFirst().orElse(null);
    }

    private static String run(String... command) throws IOException, InterruptedException {
        var builder = new ProcessBuilder(command).redirectErrorStream(true);
        // Non-interactive, and no service start-up inside the test run.
        builder.environment().putAll(Map.of("DEBIAN_FRONTEND", "noninteractive", "RUNLEVEL", "1"));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish within 10 minutes");
        }
        return output;
    }

    private static String tail(String text) {
        return text.length() <= 500 ? text : text.substring(text.length() - 500);
    }
}
