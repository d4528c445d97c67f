package io.pgharvest.embedded;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Binaries in a shared temp folder are used only when this user owns the folder and nobody else can write it. */
@Tag("fast")
class BinariesFolderTrustTest {

    @TempDir
    Path dir;

    @Test
    void aFolderOfThisUserThatOnlyItCanWriteIsTrusted() throws Exception {
        Path mine = Files.createDirectory(dir.resolve("mine"));
        Files.setPosixFilePermissions(mine, PosixFilePermissions.fromString("rwxr-xr-x"));

        assertThatCode(() -> PostgresBinaries.requireTrusted(mine)).doesNotThrowAnyException();
    }

    @Test
    void aFolderOthersCanWriteIsRefused() throws Exception {
        Path open = Files.createDirectory(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));

        assertThatThrownBy(() -> PostgresBinaries.requireTrusted(open)).hasMessageContaining("writable by other users");
    }

    @Test
    void aFolderOfAnotherUserIsRefused() throws Exception {
        Path theirs = Files.createDirectory(dir.resolve("theirs"));
        int self = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        int other = self == 65534 ? 65533 : 65534;
        Files.setAttribute(theirs, "unix:uid", other); // needs root, as the test machines run

        assertThatThrownBy(() -> PostgresBinaries.requireTrusted(theirs)).hasMessageContaining("belongs to user id " + other);
    }
}
