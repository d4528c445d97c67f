package io.pgharvest.testsupport;

import io.pgharvest.embedded.PostgresBinaries;
import io.pgharvest.embedded.ServerAccount;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A pgpool-II in front of a {@link TestPostgres} (raw mode, one backend), for tests of pgpool
 * sources. Uses the {@code pgpool} installed before the tests by
 * src/test/setup/install-test-servers.sh (Debian's package {@code pgpool2}); {@link #start} fails
 * when there is none. Runs as the embedded PostgreSQL's unprivileged account in the foreground
 * of a child process, with every file in its own temporary directory.
 *
 * <p>Clients from 127.0.0.1: the superuser logs in without a password (trust); {@link #USER}
 * logs in with {@link #PASSWORD} by SCRAM-SHA-256 (pool_hba.conf, clear-text pool_passwd entry),
 * and pgpool logs in to the backend as the same role (which the backend trusts).
 */
public final class TestPgpool implements AutoCloseable {

    public static final String USER = "pool_monitor";
    public static final String PASSWORD = "pool-secret-7";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final Path dir;
    private final int port;

    private TestPgpool(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    public static TestPgpool start(TestPostgres backend) {
        Path program = InstalledPrograms.require("pgpool");
        backend.execute("postgres", "do $$ begin if not exists (select from pg_roles where rolname = '" + USER
                + "') then create role " + USER + " login; end if; end $$");
        ServerAccount account = ServerAccount.detect();
        try {
            Path dir = Files.createTempDirectory("pgharvest-pgpool-");
            account.handOver(dir);
            int port = freePort();
            int pcpPort = freePort();
            write(account, dir.resolve("pcp.conf"), "");
            write(account, dir.resolve("pool_passwd"), USER + ":TEXT" + PASSWORD + "\n");
            write(account, dir.resolve("pool_hba.conf"), """
                    host all %s 127.0.0.1/32 trust
                    host all %s 127.0.0.1/32 scram-sha-256
                    """.formatted(TestPostgres.SUPERUSER, USER));
            write(account, dir.resolve("pgpool.conf"), """
                    backend_clustering_mode = 'raw'
                    listen_addresses = '127.0.0.1'
                    port = %d
                    socket_dir = '%s'
                    pcp_listen_addresses = ''
                    pcp_port = %d
                    pcp_socket_dir = '%s'
                    wd_ipc_socket_dir = '%s'
                    backend_hostname0 = '%s'
                    backend_port0 = %d
                    backend_weight0 = 1
                    backend_flag0 = 'DISALLOW_TO_FAILOVER'
                    enable_pool_hba = on
                    pool_passwd = '%s'
                    num_init_children = 4
                    max_pool = 1
                    pid_file_name = '%s'
                    logdir = '%s'
                    health_check_period = 0
                    sr_check_period = 0
                    load_balance_mode = off
                    failover_on_backend_error = off
                    log_destination = 'stderr'
                    """.formatted(port, dir, pcpPort, dir, dir, backend.host(), backend.port(),
                    dir.resolve("pool_passwd"), dir.resolve("pgpool.pid"), dir));
            List<String> command = new ArrayList<>(account.commandPrefix());
            command.addAll(List.of(program.toString(), "-n", "-D", "-f", dir.resolve("pgpool.conf").toString(),
                    "-F", dir.resolve("pcp.conf").toString(), "-a", dir.resolve("pool_hba.conf").toString()));
            Process process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile())
                    .start();
            var pool = new TestPgpool(process, dir, port);
            pool.awaitListening();
            return pool;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start pgpool", e);
        }
    }

    public int port() {
        return port;
    }

    /** A libpq URI for {@code database} through pgpool as {@code user}, with {@code password} when not null. */
    public String connStr(String user, String password, String database) {
        return "postgresql://" + user + (password == null ? "" : ":" + password) + "@127.0.0.1:" + port + "/"
                + database;
    }

    /** pgpool's own log (stderr), for assertion messages. */
    public String log() {
        try {
            return Files.readString(dir.resolve("stdout.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    String log = log();
                    close();
                    throw new IllegalStateException("pgpool did not start listening on port " + port + ":\n" + log,
                            notYet);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    @Override
    public void close() {
        // pgpool's children follow the parent on SIGTERM (smart shutdown waits for clients; the
        // tests' sessions are closed by then).
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        PostgresBinaries.deleteQuietly(dir);
    }

    private static void write(ServerAccount account, Path file, String content) throws IOException {
        Files.writeString(file, content, StandardCharsets.UTF_8);
        account.handOver(file);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }
}
