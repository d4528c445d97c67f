package io.pgharvest.store.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.pgharvest.api.RunningApp;
import io.pgharvest.pgwatch.format.ConfigFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A configuration file that does not parse stops start-up, says where, and is left untouched. */
@ExtendWith(OutputCaptureExtension.class)
class CorruptFileTest {

    @TempDir
    Path dataDir;

    @Test
    void aSourcesFileThatDoesNotParseStopsStartUpNamingFileAndLine(CapturedOutput output) throws Exception {
        Path sources = dataDir.resolve("sources.yaml");
        String corrupt = """
                - name: ok
                  conn_str: postgresql://u:hunter2@db/x
                  preset_metrics: basic
                    is_enabled: true
                - name: next
                """;
        Files.writeString(sources, corrupt);
        FileTime modified = Files.getLastModifiedTime(sources);

        ConfigFileException failure = startUpFailure();

        assertThat(failure.file()).isEqualTo(sources);
        assertThat(failure.line()).isEqualTo(4);
        assertThat(failure.getMessage()).contains("sources.yaml at line 4");
        assertThat(Files.readString(sources)).isEqualTo(corrupt);
        assertThat(Files.getLastModifiedTime(sources)).isEqualTo(modified);
        assertThat(output.getAll()).contains("APPLICATION FAILED TO START")
                .contains("cannot read its configuration file " + sources + " at line 4")
                .contains("pgharvest has not changed the file")
                .doesNotContain("hunter2");
    }

    @Test
    void anUnknownKindInTheSourcesFileNamesTheItemAndLine() throws Exception {
        Files.writeString(dataDir.resolve("sources.yaml"), """
                - name: one
                  conn_str: postgresql://db/x
                  kind: oracle
                """);

        ConfigFileException failure = startUpFailure();

        assertThat(failure.line()).isEqualTo(3);
        assertThat(failure.problem()).contains("[0].kind").contains("oracle");
    }

    @Test
    void aMetricsFileWithADuplicateKeyStopsStartUp() throws Exception {
        Path metrics = dataDir.resolve("metrics.yaml");
        Files.writeString(metrics, """
                metrics:
                  mine:
                    sqls: {14: select 1 as x}
                  mine:
                    sqls: {14: select 2 as x}
                """);

        ConfigFileException failure = startUpFailure();

        assertThat(failure.file()).isEqualTo(metrics);
        assertThat(failure.line()).isEqualTo(4);
        assertThat(failure.problem()).contains("mine");
    }

    @Test
    void aSourceListedTwiceStopsStartUp() throws Exception {
        Files.writeString(dataDir.resolve("sources.yaml"), """
                - {name: twin, conn_str: "postgresql://db/x"}
                - {name: twin, conn_str: "postgresql://db/y"}
                """);

        assertThat(startUpFailure().problem()).contains("[1]").contains("twin");
    }

    /** Starts the application, expecting it to fail because of a configuration file. */
    private ConfigFileException startUpFailure() {
        Throwable failure = catchThrowable(() -> RunningApp.start(dataDir).close());
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ConfigFileException e) {
                return e;
            }
        }
        throw new AssertionError("start-up did not fail with a ConfigFileException", failure);
    }
}
