package io.pgharvest.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.pgharvest.PgharvestApplication;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A token the configuration rejects stops start-up with an error that names the property and the
 * rule, never the value: an operator who pastes the real token with a typo must not find it in a
 * log collector.
 */
@ExtendWith(OutputCaptureExtension.class)
class RejectedTokenTest {

    @TempDir
    Path dataDir;

    @ParameterizedTest
    @ValueSource(strings = {"TooShortSecret", "a visible-secret with spaces"})
    void aRejectedTokenStopsStartUpWithoutPrintingIt(String token, CapturedOutput output) {
        Throwable failure = catchThrowable(() -> SpringApplication.run(PgharvestApplication.class,
                "--server.port=0", "--pgharvest.data-dir=" + dataDir, "--spring.main.banner-mode=off",
                "--pgharvest.api.token=" + token));

        assertThat(failure).isNotNull();
        StringWriter trace = new StringWriter();
        failure.printStackTrace(new PrintWriter(trace));
        assertThat(trace.toString()).contains("pgharvest.api.token").doesNotContain(token);
        assertThat(output.getAll()).contains("pgharvest.api.token").doesNotContain(token);
    }
}
