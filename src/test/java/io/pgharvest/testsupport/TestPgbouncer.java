package io.pgharvest.testsupport;

import io.pgharvest.embedded.PostgresBinaries;
import io.pgharvest.embedded.ServerAccount;
import io.pgharvest.kind.pooler.AdminConsoleClientSession;
import io.pgharvest.kind.pooler.AdminConsoleOpener;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.Measurement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pgbouncer in front of a {@link TestPostgres}, for tests of pgbouncer's admin console. Uses the
 * {@code pgbouncer} installed before the tests by src/test/setup/install-test-servers.sh
 * (Debian's package); {@link #start} fails when there is none. Runs as the same unprivileged account as the
 * embedded PostgreSQL (pgbouncer refuses to run as root), in the foreground of a child process.
 *
 * <p>Pool {@value #DATABASE} points at the server's {@code postgres} database; the superuser logs
 * in without a password (auth_type trust) and is the console's admin. Statistics are refreshed
 * every second (stats_period = 1).
 */
public final class TestPgbouncer implements AutoCloseable {

    public static final String DATABASE = "catalog";
    public static final String CONSOLE = "pgbouncer";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final List<String> command;
    private final Path dir;
    private final int port;
    private Process process;

    private TestPgbouncer(List<String> command, Path dir, int port) {
        this.command = List.copyOf(command);
        this.dir = dir;
        this.port = port;
    }

    public static TestPgbouncer start(TestPostgres backend) {
        return start(backend, "trust", null, null);
    }

    /**
     * A pgbouncer whose clients log in with {@code authType} (trust, md5, scram-sha-256, plain);
     * {@code user} (when not null) is an admin of the console with {@code password} in the
     * auth file, in clear text so that every auth type can check it.
     */
    public static TestPgbouncer start(TestPostgres backend, String authType, String user, String password) {
        return start(backend, authType, user, password, false);
    }

    /**
     * A trusting pgbouncer whose clients must use TLS (client_tls_sslmode = require), with a
     * self-signed certificate made by {@code openssl} (installed by the test setup).
     */
    public static TestPgbouncer startWithTls(TestPostgres backend) {
        return start(backend, "trust", null, null, true);
    }

    private static TestPgbouncer start(TestPostgres backend, String authType, String user, String password,
            boolean tls) {
        Path program = InstalledPrograms.require("pgbouncer");
        ServerAccount account = ServerAccount.detect();
        Path dir;
        try {
            dir = Files.createTempDirectory("pgharvest-pgbouncer-");
            account.handOver(dir);
            int port = freePort();
            String users = "\"" + TestPostgres.SUPERUSER + "\" \"\"\n"
                    + (user == null ? "" : "\"" + user + "\" \"" + password + "\"\n");
            write(account, dir.resolve("userlist.txt"), users);
            String tlsSettings = tls ? selfSignedCertificate(account, dir) : "";
            write(account, dir.resolve("pgbouncer.ini"), """
                    [databases]
                    %s = host=%s port=%d dbname=postgres user=%s

                    [pgbouncer]
                    listen_addr = 127.0.0.1
                    listen_port = %d
                    unix_socket_dir =
                    auth_type = %s
                    auth_file = %s
                    admin_users = %s%s
                    pool_mode = transaction
                    ignore_startup_parameters = extra_float_digits
                    stats_period = 1
                    logfile = %s
                    %s""".formatted(DATABASE, backend.host(), backend.port(), TestPostgres.SUPERUSER, port,
                    authType, dir.resolve("userlist.txt"), TestPostgres.SUPERUSER, user == null ? "" : ", " + user,
                    dir.resolve("pgbouncer.log"), tlsSettings));
            List<String> command = new ArrayList<>(account.commandPrefix());
            command.add(program.toString());
            command.add(dir.resolve("pgbouncer.ini").toString());
            var bouncer = new TestPgbouncer(command, dir, port);
            bouncer.launch();
            return bouncer;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start pgbouncer", e);
        }
    }

    private void launch() throws IOException {
        process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile()))
                .start();
        awaitListening();
    }

    public int port() {
        return port;
    }

    /** Stops pgbouncer (its clients lose their sessions); {@link #restart} brings it back on the same port. */
    public void stop() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts the stopped pgbouncer again with the same configuration and port. */
    public void restart() {
        try {
            launch();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot restart pgbouncer", e);
        }
    }

    /**
     * A pgjdbc URL for a pooled database through pgbouncer. Not for the admin console
     * ({@value #CONSOLE}): pgjdbc 42.7.5+ cannot log in there (use {@link #queryConsole}).
     */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + TestPostgres.SUPERUSER
                + "&assumeMinServerVersion=9.0";
    }

    /**
     * Runs a command (e.g. {@code show pools}) on the admin console as the superuser with
     * pgharvest's own console client (pgjdbc cannot log in there, see docs/sources.md) and
     * returns the rows as text.
     */
    public List<Map<String, String>> queryConsole(String command) throws IOException {
        var opener = new AdminConsoleOpener(new SessionSettings(START_TIMEOUT, START_TIMEOUT, START_TIMEOUT, START_TIMEOUT));
        var conn = ConnectionString.parse("postgresql://" + TestPostgres.SUPERUSER + "@127.0.0.1:" + port + "/" + CONSOLE
                + "?sslmode=disable");
        try (AdminConsoleClientSession session = opener.openConsole(conn, io.pgharvest.kind.pooler.AdminConsoleDialect.PGBOUNCER)) {
            var rows = new ArrayList<Map<String, String>>();
            for (Measurement.Row row : session.run(command, START_TIMEOUT)) {
                var text = new LinkedHashMap<String, String>();
                row.values().forEach((column, value) -> text.put(column, value == null ? null : value.toString()));
                rows.add(text);
            }
            return rows;
        } catch (SQLException e) {
            throw new IOException("'" + command + "' on pgbouncer's console failed: " + e.getMessage(), e);
        }
    }

    /** pgbouncer's version as its console reports it, e.g. "PgBouncer 1.18.0". */
    public String version() throws IOException {
        return queryConsole("show version").getFirst().values().iterator().next();
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    close();
                    throw new IllegalStateException("pgbouncer did not start listening on port " + port + ":\n"
                            + Files.readString(dir.resolve("stdout.log"), StandardCharsets.UTF_8), notYet);
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
        stop();
        PostgresBinaries.deleteQuietly(dir);
    }

    /** Makes key.pem and cert.pem in {@code dir} and returns the settings that require TLS from clients. */
    private static String selfSignedCertificate(ServerAccount account, Path dir) throws IOException {
        var made = SelfSignedCertificate.makeIn(dir, account);
        return "client_tls_sslmode = require\nclient_tls_key_file = " + made.key()
                + "\nclient_tls_cert_file = " + made.certificate() + "\n";
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
