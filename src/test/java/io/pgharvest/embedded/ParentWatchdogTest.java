package io.pgharvest.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** An embedded server dies with the JVM that started it, also when that JVM is killed with SIGKILL. */
class ParentWatchdogTest {

    @Test
    void theServerAndItsFilesGoAwayWhenTheJvmIsKilled() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                WatchdogChild.class.getName()).redirectErrorStream(true).start();
        long postmaster;
        Path instanceDir;
        try (var lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            do {
                line = lines.readLine();
            } while (line != null && !line.startsWith("postmaster "));
            assertThat(line).as("the child's announcement").isNotNull();
            String[] parts = line.split(" ");
            postmaster = Long.parseLong(parts[1]);
            instanceDir = Path.of(parts[2]);
            assertThat(ProcessHandle.of(postmaster)).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());

            child.destroyForcibly(); // SIGKILL: no shutdown hook runs
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.of(postmaster).map(p -> !p.isAlive())
                .orElse(true));
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(instanceDir));
    }
}
