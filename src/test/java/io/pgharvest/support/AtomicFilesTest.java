package io.pgharvest.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("fast")
class AtomicFilesTest {

    @TempDir
    Path dir;

    @Test
    void aWriteReplacesTheWholeFileReadableByItsOwnerOnlyAndLeavesNoTempFile() throws IOException {
        Path target = dir.resolve("sources.yaml");
        Files.writeString(target, "old content that is longer than the new one");

        AtomicFiles.write(target, "new".getBytes(StandardCharsets.UTF_8));

        assertThat(Files.readString(target)).isEqualTo("new");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rw-------");
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(target);
        }
    }

    @Test
    void tempFilesACrashLeftAreRemovedAndNothingElse() throws IOException {
        Path kept = dir.resolve("metrics.yaml");
        Files.writeString(kept, "kept");
        Files.writeString(dir.resolve(".metrics.yaml.123.pgharvest-tmp"), "half written");
        Files.writeString(dir.resolve(".sources.yaml.456.pgharvest-tmp"), "half written");

        assertThat(AtomicFiles.removeStrayTempFiles(dir)).isEqualTo(2);
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(kept);
        }
    }

    @Test
    void aCreatedDirectoryIsTheOwnersOnly() throws IOException {
        Path spill = dir.resolve("spill/postgres");

        AtomicFiles.createDirectories(spill);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(spill))).isEqualTo("rwx------");
    }
}
