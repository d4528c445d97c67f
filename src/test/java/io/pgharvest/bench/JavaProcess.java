package io.pgharvest.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM started by the harness as a separate process, output to a log file, stopped with SIGTERM
 * (then SIGKILL after {@link #STOP_GRACE}) when closed or when the harness exits.
 */
final class JavaProcess implements AutoCloseable {

    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    private static final int LOG_TAIL_LINES = 60;

    private final String description;
    private final Process process;
    private final Path log;
    private final AutoCloseable cleanupHandle;

    private JavaProcess(String description, Process process, Path log, Cleanup cleanup) {
        this.description = description;
        this.process = process;
        this.log = log;
        this.cleanupHandle = cleanup.register(description + " (pid " + process.pid() + ")", this::terminate);
    }

    /**
     * Starts {@code java [jvmOptions] args...} in {@code workDir}. JAVA_TOOL_OPTIONS and friends are
     * removed from the environment so that only the given options apply.
     */
    static JavaProcess start(String description, Path java, List<String> jvmOptions, List<String> arguments,
            Path workDir, Path log, Cleanup cleanup) throws IOException {
        var command = new ArrayList<String>();
        command.add(java.toString());
        command.addAll(jvmOptions);
        command.addAll(arguments);
        var builder = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().keySet().removeAll(List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"));
        Files.writeString(log, "", StandardCharsets.UTF_8);
        return new JavaProcess(description, builder.start(), log, cleanup);
    }

    /** The harness's class path with absolute entries: the child runs in another directory. */
    static String absoluteClassPath() {
        return java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .map(entry -> Path.of(entry).toAbsolutePath().toString())
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Throws with the log's tail when the process has ended. */
    void requireAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(description + " exited with code " + process.exitValue()
                    + "; last lines of " + log + ":\n" + logTail());
        }
    }

    String logTail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    private void terminate() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(STOP_GRACE.toSeconds(), TimeUnit.SECONDS)) {
            System.err.println("[bench] " + description + " did not stop in " + STOP_GRACE.toSeconds()
                    + " s; killing it");
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws Exception {
        cleanupHandle.close();
    }
}
