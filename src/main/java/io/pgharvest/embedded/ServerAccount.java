package io.pgharvest.embedded;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.List;
import java.util.stream.Stream;

/**
 * The operating-system account the PostgreSQL programs run as.
 *
 * <p>initdb and postgres refuse to run as root. When this JVM runs as root (containers, CI) every
 * program is started through {@code setpriv} (util-linux) as {@code nobody}, and the files the
 * server writes must belong to that account ({@link #handOver}). Otherwise programs run as the
 * current user and nothing needs changing.
 */
public record ServerAccount(List<String> commandPrefix, UserPrincipal user, GroupPrincipal group) {

    private static final String UNPRIVILEGED_USER = "nobody";
    /** Debian/Ubuntu call nobody's group "nogroup", Red Hat family distributions "nobody". */
    private static final List<String> UNPRIVILEGED_GROUPS = List.of("nogroup", "nobody");

    public ServerAccount {
        commandPrefix = List.copyOf(commandPrefix);
    }

    public static ServerAccount detect() {
        if (effectiveUid() != 0) {
            return new ServerAccount(List.of(), null, null);
        }
        if (findOnPath("setpriv") == null) {
            throw new IllegalStateException("Running as root: PostgreSQL must run as an unprivileged "
                    + "user, which needs setpriv (util-linux) on the PATH; it was not found");
        }
        UserPrincipalLookupService lookup = Path.of("/").getFileSystem().getUserPrincipalLookupService();
        UserPrincipal user;
        try {
            user = lookup.lookupPrincipalByName(UNPRIVILEGED_USER);
        } catch (IOException e) {
            throw new IllegalStateException("Running as root: user '" + UNPRIVILEGED_USER
                    + "' is needed to run PostgreSQL but was not found", e);
        }
        GroupPrincipal group = lookupGroup(lookup);
        List<String> prefix = List.of("setpriv", "--reuid=" + UNPRIVILEGED_USER,
                "--regid=" + group.getName(), "--clear-groups", "--");
        return new ServerAccount(prefix, user, group);
    }

    boolean dropsPrivileges() {
        return user != null;
    }

    /** Makes {@code path} (not its contents) owned by the server account, when privileges are dropped. */
    public void handOver(Path path) {
        if (!dropsPrivileges()) {
            return;
        }
        try {
            PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class);
            view.setOwner(user);
            view.setGroup(group);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot hand " + path + " over to " + user.getName(), e);
        }
    }

    private static GroupPrincipal lookupGroup(UserPrincipalLookupService lookup) {
        for (String name : UNPRIVILEGED_GROUPS) {
            try {
                return lookup.lookupPrincipalByGroupName(name);
            } catch (UserPrincipalNotFoundException e) {
                // try the next conventional name
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("Running as root: none of the groups " + UNPRIVILEGED_GROUPS
                + " exists; one is needed to run PostgreSQL unprivileged");
    }

    /** The owner of /proc/self is the effective uid of this process (Linux). */
    private static int effectiveUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot determine the effective user id", e);
        }
    }

    private static Path findOnPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        return Stream.of(path.split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, program))
                .filter(Files::isExecutable)
                .findFirst()
                .orElse(null);
    }
}
