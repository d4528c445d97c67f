package io.pgharvest.kind.pooler;

import io.pgharvest.kind.SessionSettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.model.Measurement;
import io.pgharvest.testsupport.TestPgbouncer;
import io.pgharvest.testsupport.TestPgpool;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * pgharvest's console client against the real pgbouncer and pgpool of Debian's packages: login
 * with each authentication method they use, SHOW commands as typed rows, and clear errors for a
 * wrong password, a refused TLS requirement and a silent server. Fails when a server is missing.
 */
class AdminConsoleSessionTest {

    private static final String USER = "console_monitor";
    private static final String PASSWORD = "Console-pw-31x";
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private static TestPgbouncer trustBouncer;
    private static TestPgbouncer md5Bouncer;
    private static TestPgbouncer scramBouncer;
    private static TestPgpool pgpool;
    private final AdminConsoleOpener opener = new AdminConsoleOpener(
            new SessionSettings(TIMEOUT, Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofMinutes(1)));

    @BeforeAll
    static void startPoolers() {
        TestPostgres backend = TestPostgres.shared();
        trustBouncer = TestPgbouncer.start(backend);
        md5Bouncer = TestPgbouncer.start(backend, "md5", USER, PASSWORD);
        scramBouncer = TestPgbouncer.start(backend, "scram-sha-256", USER, PASSWORD);
        pgpool = TestPgpool.start(backend);
    }

    @AfterAll
    static void stopPoolers() {
        for (AutoCloseable server : new AutoCloseable[] {trustBouncer, md5Bouncer, scramBouncer, pgpool}) {
            try {
                if (server != null) {
                    server.close();
                }
            } catch (Exception ignored) {
                // best effort
            }
        }
    }

    @Test
    void readsPgbouncersConsoleWithTypedValues() throws SQLException {
        try (AdminConsoleClientSession session = opener.openConsole(console(trustBouncer, "postgres", null),
                AdminConsoleDialect.PGBOUNCER)) {
            assertThat(session.version()).startsWith("PgBouncer 1.");
            List<Measurement.Row> pools = session.run("show pools", TIMEOUT);
            assertThat(pools).anySatisfy(row -> {
                assertThat(row.values()).containsEntry("database", TestPgbouncer.CONSOLE)
                        .containsEntry("pool_mode", "statement");
                assertThat(row.values().get("cl_active")).isInstanceOf(Long.class);
            });
            assertThat(session.run("show lists", TIMEOUT)).extracting(row -> row.values().get("list"))
                    .contains("databases", "pools");
        }
    }

    @Test
    void logsInToPgbouncerWithMd5AndScram() throws SQLException {
        for (TestPgbouncer bouncer : List.of(md5Bouncer, scramBouncer)) {
            try (AdminConsoleClientSession session = opener.openConsole(console(bouncer, USER, PASSWORD),
                    AdminConsoleDialect.PGBOUNCER)) {
                assertThat(session.run("show databases", TIMEOUT)).extracting(row -> row.values().get("name"))
                        .contains(TestPgbouncer.DATABASE);
            }
        }
    }

    @Test
    void aScramPasswordIsPreparedWithSaslprepAsTheServerPreparesIt() throws SQLException {
        // SASLprep maps the no-break space to a space: pgbouncer derives its secret from "Console pw-32x",
        // so a client that sent the password's bytes as they are would be refused.
        String password = "Console\u00A0pw-32x";
        try (TestPgbouncer bouncer = TestPgbouncer.start(TestPostgres.shared(), "scram-sha-256", "console_prep",
                password)) {
            ConnectionString conn = ConnectionString.parse("host=127.0.0.1 port=" + bouncer.port() + " dbname="
                    + TestPgbouncer.CONSOLE + " user=console_prep password='" + password + "'");
            try (AdminConsoleClientSession session = opener.openConsole(conn, AdminConsoleDialect.PGBOUNCER)) {
                assertThat(session.run("show databases", TIMEOUT)).extracting(row -> row.values().get("name"))
                        .contains(TestPgbouncer.DATABASE);
            }
        }
    }

    @Test
    void aWrongPasswordIsRefusedWithoutRevealingIt() {
        for (TestPgbouncer bouncer : List.of(md5Bouncer, scramBouncer)) {
            assertThatThrownBy(() -> opener.openConsole(console(bouncer, USER, "Wrong-pw-555"), AdminConsoleDialect.PGBOUNCER))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        // pgbouncer reports 08P01 rather than PostgreSQL's 28P01
                        assertThat(e.getMessage()).containsPattern("(password|SASL) authentication failed");
                        assertThat(e.getMessage()).doesNotContain("Wrong-pw-555");
                    });
        }
        assertThatThrownBy(() -> opener.openConsole(console(scramBouncer, USER, null), AdminConsoleDialect.PGBOUNCER))
                .hasMessageContaining("has none");
    }

    @Test
    void readsPgpoolsNodesAndProcessesAfterScramLogin() throws SQLException {
        ConnectionString conn = ConnectionString.parse(pgpool.connStr(TestPgpool.USER, TestPgpool.PASSWORD, "postgres"));
        try (AdminConsoleClientSession session = opener.openConsole(conn, AdminConsoleDialect.PGPOOL)) {
            assertThat(session.version()).startsWith("4.");
            assertThat(session.run("show pool_nodes", TIMEOUT)).singleElement().satisfies(row ->
                    assertThat(row.values()).containsEntry("node_id", "0").containsEntry("status", "up"));
            assertThat(session.run("show pool_processes", TIMEOUT)).isNotEmpty();
        }
        ConnectionString wrong = ConnectionString.parse(pgpool.connStr(TestPgpool.USER, "Wrong-pw-556", "postgres"));
        assertThatThrownBy(() -> opener.openConsole(wrong, AdminConsoleDialect.PGPOOL))
                .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getMessage()).doesNotContain("Wrong-pw-556"));
    }

    @Test
    void aSourceThatIsNotOfItsKindIsRefusedAtLogin() {
        TestPostgres postgres = TestPostgres.shared();
        ConnectionString direct = ConnectionString.parse("postgresql://postgres@" + postgres.host() + ":"
                + postgres.port() + "/postgres?sslmode=disable");
        assertThatThrownBy(() -> opener.openConsole(direct, AdminConsoleDialect.PGBOUNCER))
                .hasMessageContaining("not pgbouncer's admin console").hasMessageContaining("show version");
        ConnectionString pooledDatabase = ConnectionString.parse("postgresql://postgres@127.0.0.1:" + trustBouncer.port()
                + "/" + TestPgbouncer.DATABASE);
        assertThatThrownBy(() -> opener.openConsole(pooledDatabase, AdminConsoleDialect.PGPOOL))
                .hasMessageContaining("not pgpool-II").hasMessageContaining("show pool_version");
    }

    @Test
    void sslmodeRequireIsRefusedClearlyByAServerWithoutTls() {
        ConnectionString conn = ConnectionString.parse("postgresql://postgres@127.0.0.1:" + trustBouncer.port()
                + "/pgbouncer?sslmode=require");
        assertThatThrownBy(() -> opener.openConsole(conn, AdminConsoleDialect.PGBOUNCER))
                .hasMessageContaining("TLS not offered").hasMessageContaining("sslmode=require");
    }

    @Test
    void encryptsWhenSslmodeAsksAndTheConsoleOffersTls() throws SQLException {
        try (TestPgbouncer tls = TestPgbouncer.startWithTls(TestPostgres.shared())) {
            for (String mode : List.of("require", "prefer")) {
                ConnectionString conn = ConnectionString.parse("postgresql://postgres@127.0.0.1:" + tls.port()
                        + "/pgbouncer?sslmode=" + mode);
                try (AdminConsoleClientSession session = opener.openConsole(conn, AdminConsoleDialect.PGBOUNCER)) {
                    assertThat(session.run("show clients", TIMEOUT)).as(mode)
                            .anySatisfy(row -> assertThat(String.valueOf(row.values().get("tls"))).startsWith("TLS"));
                }
            }
            ConnectionString plain = ConnectionString.parse("postgresql://postgres@127.0.0.1:" + tls.port()
                    + "/pgbouncer?sslmode=disable");
            assertThatThrownBy(() -> opener.openConsole(plain, AdminConsoleDialect.PGBOUNCER)).isInstanceOf(SQLException.class);
        }
    }

    @Test
    void verifyingCertificatesIsRefusedBeforeConnecting() {
        ConnectionString conn = ConnectionString.parse("postgresql://postgres@127.0.0.1:" + trustBouncer.port()
                + "/pgbouncer?sslmode=verify-full");
        assertThatThrownBy(() -> opener.openConsole(conn, AdminConsoleDialect.PGBOUNCER))
                .hasMessageContaining("sslmode=verify-full is not supported");
    }

    @Test
    void aSilentServerTimesOutWithinTheConnectTimeout() throws IOException {
        try (ServerSocket silent = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.1"))) {
            ConnectionString conn = ConnectionString.parse("postgresql://postgres@127.0.0.1:" + silent.getLocalPort()
                    + "/pgbouncer?sslmode=disable");
            long started = System.nanoTime();
            assertThatThrownBy(() -> opener.openConsole(conn, AdminConsoleDialect.PGBOUNCER, Duration.ofMillis(500)))
                    .hasMessageContaining("login timed out");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void aCommandWithoutAnswerEndsTheSessionAfterItsTimeout() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 5, InetAddress.getByName("127.0.0.1"))) {
            Thread.ofVirtual().start(() -> acceptLoginThenStaySilent(server));
            ConnectionString conn = ConnectionString.parse("postgresql://postgres@127.0.0.1:" + server.getLocalPort()
                    + "/pgbouncer?sslmode=disable");
            try (AdminConsoleClientSession session = opener.openConsole(conn, AdminConsoleDialect.PGBOUNCER)) {
                assertThat(session.version()).isEqualTo("Silent 1.0");
                long started = System.nanoTime();
                assertThatThrownBy(() -> session.run("show pools", Duration.ofMillis(300)))
                        .isInstanceOfSatisfying(SQLException.class, e -> {
                            assertThat(e.getSQLState()).isEqualTo("08006");
                            assertThat(e.getMessage()).contains("no answer within 300 ms");
                            assertThat(session.isBroken(e)).isTrue();
                        });
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
            }
        }
    }

    /**
     * A server that logs anybody in (AuthenticationOk, ReadyForQuery), answers the first query
     * (the version check) with one row, and then never answers again.
     */
    private static void acceptLoginThenStaySilent(ServerSocket server) {
        try (Socket client = server.accept()) {
            var in = new java.io.DataInputStream(client.getInputStream());
            in.readNBytes(in.readInt() - 4); // the startup packet
            var out = new java.io.DataOutputStream(client.getOutputStream());
            out.writeByte('R');
            out.writeInt(8);
            out.writeInt(0);
            out.writeByte('Z');
            out.writeInt(5);
            out.writeByte('I');
            out.flush();
            in.readByte(); // 'Q'
            in.readNBytes(in.readInt() - 4);
            byte[] column = "version\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            out.writeByte('T');
            out.writeInt(4 + 2 + column.length + 18);
            out.writeShort(1);
            out.write(column);
            out.writeInt(0);
            out.writeShort(0);
            out.writeInt(25); // text
            out.writeShort(-1);
            out.writeInt(-1);
            out.writeShort(0);
            byte[] value = "Silent 1.0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            out.writeByte('D');
            out.writeInt(4 + 2 + 4 + value.length);
            out.writeShort(1);
            out.writeInt(value.length);
            out.write(value);
            byte[] tag = "SHOW\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            out.writeByte('C');
            out.writeInt(4 + tag.length);
            out.write(tag);
            out.writeByte('Z');
            out.writeInt(5);
            out.writeByte('I');
            out.flush();
            while (in.read() >= 0) {
                // swallow the query, answer nothing
            }
        } catch (IOException ignored) {
            // the client went away: done
        }
    }

    private static ConnectionString console(TestPgbouncer bouncer, String user, String password) {
        return ConnectionString.parse("postgresql://" + user + (password == null ? "" : ":" + password)
                + "@127.0.0.1:" + bouncer.port() + "/" + TestPgbouncer.CONSOLE);
    }
}
