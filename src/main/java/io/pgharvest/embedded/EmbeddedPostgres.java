package io.pgharvest.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * A PostgreSQL server run from the zonky binaries with our own initdb/pg_ctl calls: used by the
 * tests and by the demo profile. It runs as root too (through an unprivileged account), which
 * the zonky launcher cannot.
 *
 * <p>Layout of the instance directory (a fresh temp directory owned by the server account):
 * {@code data/} (PGDATA), {@code server.log} (the server's log) and the Unix socket. Settings
 * live in {@code data/pgharvest-embedded.conf}, included from postgresql.conf, so a restart (and a
 * later cold copy for a standby) reuses them, including the port.
 *
 * <p>A shutdown hook stops the server if its owner forgets {@link #close()}; a JVM that is killed
 * (SIGKILL) leaves the postmaster running unless the owner also started {@link #watchParent()}.
 */
public final class EmbeddedPostgres implements PostgresServer {

    static final String HOST = "127.0.0.1";
    static final String SETTINGS_FILE = "pgharvest-embedded.conf";
    private static final Duration INITDB_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration PG_CTL_WAIT = Duration.ofSeconds(60);
    private static final Duration PG_CTL_TIMEOUT = PG_CTL_WAIT.plusSeconds(30);
    private static final int PORT_ATTEMPTS = 5;
    private static final int LOG_TAIL_LINES = 40;

    private final ReentrantLock lifecycle = new ReentrantLock();
    private final PostgresPrograms programs;
    private final Path instanceDir;
    private final Path dataDir;
    private final Path logFile;
    private final Map<String, String> settings;
    private final Thread shutdownHook = Thread.ofPlatform().name("embedded-postgres-shutdown").unstarted(this::close);
    private final boolean kept;
    private int port;
    private boolean closed;

    private EmbeddedPostgres(PostgresPrograms programs, Path instanceDir, Map<String, String> settings) {
        this(programs, instanceDir, settings, false);
    }

    private EmbeddedPostgres(PostgresPrograms programs, Path instanceDir, Map<String, String> settings, boolean kept) {
        this.programs = programs;
        this.kept = kept;
        this.instanceDir = instanceDir;
        this.dataDir = instanceDir.resolve("data");
        this.logFile = instanceDir.resolve("server.log");
        this.settings = settings;
    }

    /** Creates a new cluster and starts it on a free port with the given extra server settings. */
    public static EmbeddedPostgres launch(Map<String, String> serverSettings) {
        return launch(PostgresBinaries.install(), serverSettings);
    }

    /** Like {@link #launch(Map)} with the PostgreSQL installed in {@code installation}. */
    public static EmbeddedPostgres launch(Path installation, Map<String, String> serverSettings) {
        PostgresPrograms programs = new PostgresPrograms(installation, ServerAccount.detect());
        EmbeddedPostgres server = new EmbeddedPostgres(programs, newInstanceDir(), Map.copyOf(serverSettings));
        Runtime.getRuntime().addShutdownHook(server.shutdownHook);
        try {
            server.initdb();
            server.startOnFreePort();
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * A server whose cluster lives in {@code instanceDir} and outlives it: created there on the
     * first launch, started again from it on the next ones (on {@code port}), and stopped but never
     * removed by {@link #close()} or the watchdog. For data meant to survive a restart (the demo's
     * history).
     */
    public static EmbeddedPostgres launchKept(Path instanceDir, int port, Map<String, String> serverSettings) {
        PostgresPrograms programs = new PostgresPrograms(PostgresBinaries.install(), ServerAccount.detect());
        try {
            Files.createDirectories(instanceDir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + instanceDir + " for an embedded PostgreSQL", e);
        }
        EmbeddedPostgres server = new EmbeddedPostgres(programs, instanceDir, Map.copyOf(serverSettings), true);
        Runtime.getRuntime().addShutdownHook(server.shutdownHook);
        try {
            if (!Files.exists(server.dataDir.resolve("PG_VERSION"))) {
                server.initdb();
            } else {
                programs.account().handOver(instanceDir);
            }
            server.port = port;
            server.writeSettings();
            server.pgCtlStart();
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * A hot standby streaming from {@code primary}, made from a cold copy of the primary's data
     * directory (the binaries ship no pg_basebackup). The primary is stopped for the copy and
     * started again on its port before the standby starts; its sessions are terminated. The
     * standby has the primary's settings plus {@code primary_conninfo} with
     * {@code application_name=<applicationName>}.
     */
    public static EmbeddedPostgres launchStandby(EmbeddedPostgres primary, String applicationName) {
        Map<String, String> settings = new LinkedHashMap<>(primary.settings);
        settings.put("primary_conninfo", "host=" + HOST + " port=" + primary.port() + " user=postgres"
                + " application_name=" + applicationName);
        settings.put("hot_standby", "on");
        EmbeddedPostgres standby = new EmbeddedPostgres(primary.programs, newInstanceDir(), Map.copyOf(settings));
        Runtime.getRuntime().addShutdownHook(standby.shutdownHook);
        try {
            standby.programs.account().handOver(standby.instanceDir);
            primary.copyDataDirectory(standby.dataDir);
            standby.writeServerFile(standby.dataDir.resolve("standby.signal").toString(), "");
            standby.startOnFreePort();
            return standby;
        } catch (RuntimeException e) {
            standby.close();
            throw e;
        }
    }

    private static Path newInstanceDir() {
        try {
            return Files.createTempDirectory("pgharvest-pg-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a directory for an embedded PostgreSQL", e);
        }
    }

    /** Copies the data directory of this server, stopped meanwhile, to {@code target} owned by the server account. */
    private void copyDataDirectory(Path target) {
        lifecycle.lock();
        try {
            requireOpen();
            stopIfRunning();
            try (Stream<Path> tree = Files.walk(dataDir)) {
                for (Path source : (Iterable<Path>) tree::iterator) {
                    if (source.getFileName().toString().equals("postmaster.pid")) {
                        continue;
                    }
                    Path copy = target.resolve(dataDir.relativize(source).toString());
                    Files.copy(source, copy, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                    programs.account().handOver(copy);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot copy " + dataDir + " to " + target, e);
            } finally {
                pgCtlStart();
            }
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int port() {
        return port;
    }

    /** The directory holding the data directory, the log and the socket; removed by {@link #close()} unless kept. */
    public Path instanceDir() {
        return instanceDir;
    }

    /** The running postmaster's process id. */
    public long postmasterPid() {
        return ParentWatchdog.postmasterPid(dataDir);
    }

    /**
     * Stops this server and removes its files when the JVM dies, even by SIGKILL, which runs no
     * shutdown hook. Close the watchdog when closing the server normally.
     */
    public ParentWatchdog watchParent() {
        return ParentWatchdog.start(postmasterPid(), kept ? null : instanceDir);
    }

    Path dataDir() {
        return dataDir;
    }

    @Override
    public void start() {
        lifecycle.lock();
        try {
            requireOpen();
            if (!isRunning()) {
                pgCtlStart();
            }
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public void stop() {
        lifecycle.lock();
        try {
            requireOpen();
            stopIfRunning();
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public boolean isRunning() {
        // pg_ctl status: 0 = running, 3 = not running, 4 = no data directory
        return !closed && programs.run(instanceDir, PG_CTL_TIMEOUT, "pg_ctl", "status", "-D", dataDir.toString())
                .exitCode() == 0;
    }

    @Override
    public void writeServerFile(String serverPath, String content) {
        Path file = Path.of(serverPath);
        try {
            Files.writeString(file, content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
        programs.account().handOver(file);
    }

    @Override
    public void close() {
        lifecycle.lock();
        try {
            if (closed) {
                return;
            }
            try {
                stopIfRunning();
            } finally {
                closed = true;
                if (!kept) {
                    PostgresBinaries.deleteQuietly(instanceDir);
                }
                removeShutdownHook();
            }
        } finally {
            lifecycle.unlock();
        }
    }

    private void initdb() {
        programs.account().handOver(instanceDir);
        programs.runSuccessfully(instanceDir, INITDB_TIMEOUT, "initdb",
                "-D", dataDir.toString(), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync");
        try {
            Files.writeString(dataDir.resolve("postgresql.conf"), "\ninclude '" + SETTINGS_FILE + "'\n",
                    StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot configure " + dataDir, e);
        }
    }

    /**
     * Picks a port that is free now and starts; another process may take it in between (parallel
     * builds on one machine), so a bind failure is retried with a new port.
     */
    private void startOnFreePort() {
        for (int attempt = 1; ; attempt++) {
            port = freePort();
            writeSettings();
            try {
                pgCtlStart();
                return;
            } catch (IllegalStateException e) {
                if (attempt == PORT_ATTEMPTS || !e.getMessage().contains("could not bind")) {
                    throw e;
                }
            }
        }
    }

    private void writeSettings() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("listen_addresses", HOST);
        all.put("port", Integer.toString(port));
        all.put("unix_socket_directories", instanceDir.toString());
        all.put("fsync", "off");
        all.put("full_page_writes", "off");
        all.putAll(settings);
        StringBuilder conf = new StringBuilder("# Written by TestPostgres; read at every start\n");
        all.forEach((name, value) -> conf.append(name).append(" = '")
                .append(value.replace("'", "''")).append("'\n"));
        writeServerFile(dataDir.resolve(SETTINGS_FILE).toString(), conf.toString());
    }

    private void pgCtlStart() {
        PostgresPrograms.Outcome outcome = programs.run(instanceDir, PG_CTL_TIMEOUT, "pg_ctl", "start",
                "-D", dataDir.toString(), "-l", logFile.toString(), "-w", "-t", Long.toString(PG_CTL_WAIT.toSeconds()));
        if (outcome.exitCode() != 0) {
            throw new IllegalStateException("PostgreSQL in " + dataDir + " did not start on port " + port
                    + " (pg_ctl exit code " + outcome.exitCode() + "):\n" + outcome.output()
                    + "\n--- last lines of " + logFile + " ---\n" + logTail());
        }
    }

    private void stopIfRunning() {
        if (!isRunning()) {
            return;
        }
        programs.runSuccessfully(instanceDir, PG_CTL_TIMEOUT, "pg_ctl", "stop",
                "-D", dataDir.toString(), "-m", "fast", "-w", "-t", Long.toString(PG_CTL_WAIT.toSeconds()));
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(log not readable: " + e + ")";
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("Test PostgreSQL in " + dataDir + " is closed");
        }
    }

    private void removeShutdownHook() {
        if (Thread.currentThread() == shutdownHook) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down; the hook will find the server closed
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free local port", e);
        }
    }
}
