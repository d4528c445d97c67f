package io.pgharvest.sink.prometheus;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus' own {@code promtool}, the reference parser of the text exposition format. Installed
 * before the tests by src/test/setup/install-test-servers.sh (Debian's {@code prometheus}
 * package); a test that needs it fails when it is missing.
 */
public final class Promtool {

    private static final List<Path> CANDIDATES = List.of(Path.of("/usr/bin/promtool"), Path.of("/usr/local/bin/promtool"));

    private Promtool() {
    }

    /** What {@code promtool check metrics} said and its exit code (0: parses and lint-clean). */
    public record Check(int exitCode, String output) {
    }

    /** The installed promtool. */
    static Path binary() {
        return CANDIDATES.stream().filter(Files::isExecutable).findFirst().orElseThrow(() -> new IllegalStateException(
                "promtool is not installed: run src/test/setup/install-test-servers.sh as root (Maven runs it before"
                        + " the tests)"));
    }

    public static Check checkMetrics(String exposition) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(binary().toString(), "check", "metrics").redirectErrorStream(true).start();
        process.getOutputStream().write(exposition.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("promtool did not finish within 60 s");
        }
        return new Check(process.exitValue(), output);
    }
}
