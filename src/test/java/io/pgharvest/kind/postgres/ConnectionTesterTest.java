package io.pgharvest.kind.postgres;

import io.pgharvest.kind.ConnectionTestResult;
import io.pgharvest.kind.SessionSettings;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ConnectionTesterTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    /** Bound for "answers within the timeout": the tester's grace plus scheduling slack on a busy machine. */
    private static final Duration WITHIN_TIMEOUT = TIMEOUT.plus(ConnectionTester.GRACE).plusSeconds(2);
    private static final String PASSWORD = "Pw-9f3kq-secret";

    private static TestPostgres passwordServer;
    private final ConnectionTester tester = new ConnectionTester(new SessionOpener(
            new SessionSettings(TIMEOUT, Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofMinutes(1))));

    @BeforeAll
    static void startServerThatRequiresPasswords() {
        passwordServer = TestPostgres.start(Map.of());
        passwordServer.execute("postgres", "create role monitor login password '" + PASSWORD + "'");
        passwordServer.replaceHbaConf("""
                host all postgres 127.0.0.1/32 trust
                host all all 127.0.0.1/32 scram-sha-256
                """);
    }

    @AfterAll
    static void stopServer() {
        if (passwordServer != null) {
            passwordServer.close();
        }
    }

    @Test
    void reportsVersionAndRecoveryStateOfARunningServer() {
        TestPostgres pg = TestPostgres.shared();

        ConnectionString conn = ConnectionString.parse(pg.connStr("postgres"));

        ConnectionTestResult result = tester.testPostgres(conn, Duration.ofSeconds(10));

        assertThat(result.error()).isNull();
        assertThat(result.reachable()).isTrue();
        assertThat(result.serverVersionNum()).isEqualTo(pg.serverVersionNum());
        assertThat(result.serverVersionNum() / 10000).isEqualTo(TestPostgres.configuredMajorVersion());
        assertThat(result.serverVersion()).startsWith(pg.majorVersion() + ".");
        assertThat(result.inRecovery()).isFalse();
        assertThat(result.sqlState()).isNull();
        assertThat(result.latencyMillis()).isNotNegative();
    }

    @Test
    void closedPortIsUnreachableWithAnErrorWithinTheTimeout() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        ConnectionString conn = ConnectionString.parse("host=127.0.0.1 port=" + closedPort + " password=" + PASSWORD);

        long started = System.nanoTime();
        ConnectionTestResult result = tester.testPostgres(conn, TIMEOUT);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(WITHIN_TIMEOUT);
        assertThat(result.reachable()).isFalse();
        assertThat(result.error()).contains("refused").doesNotContain(PASSWORD);
        assertThat(result.sqlState()).isEqualTo("08001");
        assertThat(result.serverVersionNum()).isNull();
        assertThat(result.inRecovery()).isNull();
    }

    @Test
    void blackholedConnectIsAbandonedWithinTheTimeout() throws IOException {
        try (Blackhole blackhole = Blackhole.open()) {
            ConnectionString conn = ConnectionString.parse(
                    "postgresql://u:" + PASSWORD + "@127.0.0.1:" + blackhole.port() + "/db");

            long started = System.nanoTime();
            ConnectionTestResult result = tester.testPostgres(conn, TIMEOUT);

            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(WITHIN_TIMEOUT);
            assertThat(result.reachable()).isFalse();
            assertThat(result.error()).isNotBlank().doesNotContain(PASSWORD);
        }
    }

    @Test
    void serverThatAcceptsButNeverAnswersIsAbandonedWithinTheTimeout() throws IOException {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            ConnectionString conn = ConnectionString.parse("host=127.0.0.1 port=" + silent.getLocalPort());

            long started = System.nanoTime();
            ConnectionTestResult result = tester.testPostgres(conn, TIMEOUT);

            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(WITHIN_TIMEOUT);
            assertThat(result.reachable()).isFalse();
            assertThat(result.error()).isNotBlank();
        }
    }

    @Test
    void wrongPasswordIsReportedWithoutThePassword() {
        String wrong = PASSWORD + "-wrong";
        ConnectionString conn = ConnectionString.parse(
                "host=127.0.0.1 port=" + passwordServer.port() + " dbname=postgres user=monitor password=" + wrong);

        ConnectionTestResult result = tester.testPostgres(conn, Duration.ofSeconds(10));

        assertThat(result.reachable()).isFalse();
        assertThat(result.sqlState()).isEqualTo("28P01");
        assertThat(result.error()).contains("monitor").doesNotContain(wrong).doesNotContain(PASSWORD);
    }

    @Test
    void rightPasswordReachesTheServer() {
        ConnectionString conn = ConnectionString.parse(
                "host=127.0.0.1 port=" + passwordServer.port() + " dbname=postgres user=monitor password=" + PASSWORD);

        ConnectionTestResult result = tester.testPostgres(conn, Duration.ofSeconds(10));

        assertThat(result.error()).isNull();
        assertThat(result.reachable()).isTrue();
        assertThat(result.serverVersionNum()).isEqualTo(passwordServer.serverVersionNum());
    }

    @Test
    void unknownDatabaseIsReportedWithItsSqlState() {
        ConnectionString conn = ConnectionString.parse(TestPostgres.shared().connStr("no_such_database"));

        ConnectionTestResult result = tester.testPostgres(conn, Duration.ofSeconds(10));

        assertThat(result.reachable()).isFalse();
        assertThat(result.sqlState()).isEqualTo("3D000");
        assertThat(result.error()).contains("no_such_database");
    }

    /**
     * A local port whose TCP handshake never completes: Linux drops SYNs for a listener whose accept
     * queue is full, so once the queue is filled a new connect hangs as if packets were dropped.
     */
    private record Blackhole(ServerSocket listener, List<Socket> fillers) implements AutoCloseable {

        static Blackhole open() throws IOException {
            ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            List<Socket> fillers = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                Socket filler = new Socket();
                fillers.add(filler);
                try {
                    filler.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()),
                            300);
                } catch (SocketTimeoutException queueFull) {
                    return new Blackhole(listener, fillers);
                }
            }
            throw new IllegalStateException("accept queue of the blackhole listener never filled up");
        }

        int port() {
            return listener.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            for (Socket filler : fillers) {
                filler.close();
            }
            listener.close();
        }
    }
}
