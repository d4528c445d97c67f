package io.pgharvest.support;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Crash-safe, owner-only file replacement: write a temp file in the same directory, fsync it,
 * rename it over the target (atomic on POSIX), then fsync the directory so the rename itself is
 * durable. A crash at any point leaves either the old or the new file, never a mix; at worst a
 * stray temp file, which {@link #removeStrayTempFiles(Path)} cleans up at start-up.
 */
public final class AtomicFiles {

    private static final String TEMP_SUFFIX = ".pgharvest-tmp";
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");

    private AtomicFiles() {
    }

    /** Replaces {@code target} with {@code content}; the file ends up readable by its owner only (0600). */
    public static void write(Path target, byte[] content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Path temp = Files.createTempFile(dir, "." + target.getFileName() + ".", TEMP_SUFFIX, ownerOnlyFile());
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            move(temp, target);
            syncDirectory(dir);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Creates {@code dir} (and parents) when missing; a created directory is owner-only (0700). */
    public static void createDirectories(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        if (POSIX) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
            Files.createDirectories(dir);
        }
    }

    /** Deletes temp files a crash left behind in {@code dir}; returns how many. */
    public static int removeStrayTempFiles(Path dir) throws IOException {
        int removed = 0;
        try (DirectoryStream<Path> strays = Files.newDirectoryStream(dir, ".*" + TEMP_SUFFIX)) {
            for (Path stray : strays) {
                Files.deleteIfExists(stray);
                removed++;
            }
        }
        return removed;
    }

    private static void move(Path temp, Path target) throws IOException {
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("cannot replace " + target + " atomically: the file system does not support"
                    + " atomic renames", e);
        }
    }

    /** Makes the rename durable; platforms that cannot open a directory (Windows) skip this. */
    private static void syncDirectory(Path dir) throws IOException {
        if (!POSIX) {
            return;
        }
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * Opens {@code file} for writing, creating it readable by its owner only (0600) whatever the
     * umask, and makes an existing file 0600 too (one an older version created 0644). Files that
     * hold collected rows (spill segments) or positions in them are opened this way.
     */
    public static FileChannel openOwnerOnly(Path file, StandardOpenOption... options) throws IOException {
        var all = new java.util.HashSet<StandardOpenOption>(java.util.List.of(options));
        all.add(StandardOpenOption.WRITE);
        FileChannel channel = FileChannel.open(file, all, ownerOnlyFile());
        try {
            restrictToOwner(file);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    /** Makes {@code file} readable and writable by its owner only (0600); nothing on non-POSIX platforms. */
    public static void restrictToOwner(Path file) throws IOException {
        if (POSIX) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
    }

    private static FileAttribute<?>[] ownerOnlyFile() {
        return POSIX
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
    }
}
