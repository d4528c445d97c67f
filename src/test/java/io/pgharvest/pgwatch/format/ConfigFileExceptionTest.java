package io.pgharvest.pgwatch.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class ConfigFileExceptionTest {

    @Test
    void passwordsQuotedByAParserAreMaskedOutOfTheMessage() {
        var e = new ConfigFileException(Path.of("/data/sources.yaml"), 3, 7,
                "bad value 'postgresql://u:s3cret@db/x' near password=hunter2 and password = 'two words'", null);

        assertThat(e.getMessage())
                .isEqualTo("Cannot read /data/sources.yaml at line 3, column 7: bad value 'postgresql://u:********@db/x'"
                        + " near password=******** and password = ********")
                .doesNotContain("s3cret", "hunter2", "two words");
    }

    @Test
    void aFileProblemWithoutPositionSaysSo() {
        var e = new ConfigFileException(Path.of("/data/metrics.yaml"), 0, 0, "cannot read the file", null);

        assertThat(e.getMessage()).isEqualTo("Cannot read /data/metrics.yaml: cannot read the file");
    }
}
