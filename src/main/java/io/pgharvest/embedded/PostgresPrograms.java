package io.pgharvest.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the programs of one PostgreSQL installation (initdb, pg_ctl) to completion as the
 * {@link ServerAccount}.
 *
 * <p>Output goes to a file, never to a pipe: pg_ctl leaves a postmaster behind, and a postmaster
 * that inherited a pipe would keep it open and make a reader wait forever.
 */
public final class PostgresPrograms {

    /** Exit status and combined stdout/stderr of one program run. */
    record Outcome(int exitCode, String output) {
    }

    private final Path installation;
    private final ServerAccount account;

    PostgresPrograms(Path installation, ServerAccount account) {
        this.installation = installation;
        this.account = account;
    }

    ServerAccount account() {
        return account;
    }

    /** Runs {@code program} in {@code workDir}; a non-zero exit is returned, not thrown. */
    Outcome run(Path workDir, Duration timeout, String program, String... args) {
        List<String> command = new ArrayList<>(account.commandPrefix());
        command.add(installation.resolve("bin").resolve(program).toString());
        command.addAll(List.of(args));
        Path output = null;
        try {
            output = Files.createTempFile("pgharvest-" + program + "-", ".out");
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            isolateEnvironment(builder.environment());
            Process process = builder.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(program + " did not finish within " + timeout + ": "
                        + String.join(" ", command) + "\n" + Files.readString(output, StandardCharsets.UTF_8));
            }
            return new Outcome(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + program, e);
        } finally {
            if (output != null) {
                PostgresBinaries.deleteQuietly(output);
            }
        }
    }

    /** Like {@link #run} but a non-zero exit is an exception carrying the program's output. */
    String runSuccessfully(Path workDir, Duration timeout, String program, String... args) {
        Outcome outcome = run(workDir, timeout, program, args);
        if (outcome.exitCode() != 0) {
            throw new IllegalStateException(program + " " + String.join(" ", args) + " failed with exit code "
                    + outcome.exitCode() + ":\n" + outcome.output());
        }
        return outcome.output();
    }

    /**
     * Removes libpq variables (PGPORT, PGDATA, ...) a developer may have set so they cannot
     * redirect the programs, and fixes the locale so server messages are English and stable.
     */
    private static void isolateEnvironment(Map<String, String> environment) {
        environment.keySet().removeIf(name -> name.startsWith("PG"));
        environment.keySet().removeIf(name -> name.startsWith("LC_") || name.equals("LANG"));
        environment.put("LC_ALL", "C");
    }
}
