package io.pgharvest.testsupport;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/** Finds the Debian-packaged servers the tests start (pgbouncer, pgpool, patroni, etcd). */
public final class InstalledPrograms {

    private InstalledPrograms() {
    }

    /** The program on the PATH or in /usr/sbin (where Debian puts daemons), if installed. */
    public static Optional<Path> find(String name) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin") + File.pathSeparator + "/usr/sbin";
        return Stream.of(path.split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, name))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** The program, or a failure that says how to install it: a test that cannot get its server fails. */
    public static Path require(String name) {
        return find(name).orElseThrow(() -> new IllegalStateException(name + " is not installed: run"
                + " src/test/setup/install-test-servers.sh as root (Maven runs it before the tests)"));
    }
}
