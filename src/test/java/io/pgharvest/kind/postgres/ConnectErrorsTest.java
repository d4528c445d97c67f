package io.pgharvest.kind.postgres;

import io.pgharvest.kind.SessionSettings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Connecting is bounded by the connect timeout in total, TLS request and login included, and a
 * failure says what happened: a silent server, a server that is not PostgreSQL, a connection
 * closed during the login, TLS required but not offered.
 */
class ConnectErrorsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private final SessionOpener opener = new SessionOpener(new SessionSettings(TIMEOUT, Duration.ofSeconds(5),
            Duration.ofSeconds(1), Duration.ofMinutes(1)));

    @Test
    void aSilentServerTimesOutWithinTheConnectTimeoutAndSaysSo() throws Exception {
        try (var server = fakeServer(socket -> { })) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> open(server.getLocalPort(), ""))
                    .isInstanceOf(SQLException.class).hasMessageContaining("login timed out after");
            // pgjdbc alone took two attempts (TLS, then plain): twice the timeout.
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(TIMEOUT.plusMillis(1500));
        }
    }

    /**
     * At most {@link SessionOpener#LOGINS_PER_SERVER} logins to one server at once: one more waits
     * for a turn (outside its own connect timeout) and times out a timeout later. Another server's
     * login meanwhile goes ahead at once.
     */
    @Test
    void loginsToOneServerAreBoundedAndNeverHoldBackAnotherServer() throws Exception {
        int logins = SessionOpener.LOGINS_PER_SERVER + 1;
        try (var silent = fakeServer(socket -> { });
             var closing = fakeServer(socket -> {
                 try {
                     socket.close();
                 } catch (IOException e) {
                     // closed anyway
                 }
             })) {
            long started = System.nanoTime();
            var elapsed = new java.util.concurrent.ConcurrentLinkedQueue<Duration>();
            var threads = new java.util.ArrayList<Thread>();
            for (int i = 0; i < logins; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        open(silent.getLocalPort(), "");
                    } catch (SQLException expected) {
                        elapsed.add(Duration.ofNanos(System.nanoTime() - started));
                    }
                }));
            }
            Thread.sleep(300); // the silent server's turns are all taken
            long otherStarted = System.nanoTime();
            assertThatThrownBy(() -> open(closing.getLocalPort(), ""))
                    .hasMessageContaining("closed the connection during the login");
            assertThat(Duration.ofNanos(System.nanoTime() - otherStarted)).isLessThan(TIMEOUT);
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(elapsed).hasSize(logins);
            assertThat(elapsed.stream().filter(d -> d.compareTo(TIMEOUT.multipliedBy(2)) < 0))
                    .as("the first turns time out after one timeout").hasSize(SessionOpener.LOGINS_PER_SERVER);
            assertThat(elapsed.stream().filter(d -> d.compareTo(TIMEOUT.multipliedBy(2)) >= 0))
                    .as("the one that waited for a turn times out a timeout later").hasSize(1);
        }
    }

    @Test
    void aServerThatIsNotPostgresIsCalledThatNotAnSslError() throws Exception {
        try (var server = fakeServer(socket -> {
            try {
                socket.getInputStream().read(new byte[8]);
                OutputStream out = socket.getOutputStream();
                out.write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException e) {
                // the client went away
            }
        })) {
            assertThatThrownBy(() -> open(server.getLocalPort(), ""))
                    .isInstanceOf(SQLException.class).hasMessageStartingWith("not a PostgreSQL server");
        }
    }

    @Test
    void aConnectionClosedDuringTheLoginIsReportedAsSuch() throws Exception {
        try (var server = fakeServer(socket -> {
            try {
                socket.close();
            } catch (IOException e) {
                // closed anyway
            }
        })) {
            assertThatThrownBy(() -> open(server.getLocalPort(), ""))
                    .isInstanceOf(SQLException.class).hasMessageContaining("closed the connection during the login");
        }
    }

    @Test
    void tlsRequiredButNotOfferedIsReportedAsSuch() {
        TestPostgres pg = TestPostgres.shared();
        assertThatThrownBy(() -> opener.open(ConnectionString.parse("postgresql://" + TestPostgres.SUPERUSER + "@"
                + pg.host() + ":" + pg.port() + "/postgres?sslmode=require")))
                .isInstanceOf(SQLException.class).hasMessageStartingWith("TLS not offered");
    }

    private void open(int port, String query) throws SQLException {
        opener.open(ConnectionString.parse("postgresql://u:secret-pw@127.0.0.1:" + port + "/db" + query)).close();
    }

    private static ServerSocket fakeServer(Consumer<Socket> behaviour) throws IOException {
        var server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    Thread.ofVirtual().start(() -> behaviour.accept(socket));
                } catch (IOException e) {
                    return;
                }
            }
        });
        return server;
    }
}
