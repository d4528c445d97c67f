package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * A session's socket is captured at login ({@link SessionSockets}) and tells, without a read, when
 * the server has sent something on an idle session: nothing after a finished query, bytes once the
 * backend is terminated (the server's 57P01 before it closes).
 */
class ArrivedBytesTest {

    private final SessionOpener opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(5),
            Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofMinutes(1)));

    @Test
    void anIdleSessionHasNothingWaitingUntilTheServerEndsIt() throws Exception {
        TestPostgres pg = TestPostgres.shared();
        var opened = opener.openWithSocket(conn(pg.host() + " port=" + pg.port()));
        try (Connection session = opened.value()) {
            assertThat(opened.socket()).isNotNull();
            assertThat(opened.socket().getPort()).isEqualTo(pg.port());
            var arrived = new ArrivedBytes(opened.socket());
            try (Statement st = session.createStatement(); ResultSet rs = st.executeQuery("select 1")) {
                rs.next();
            }
            assertThat(arrived.any()).isFalse();

            terminate(pg, session.unwrap(PGConnection.class).getBackendPID());

            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!arrived.any() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(arrived.any()).as("the server's goodbye is waiting on the socket").isTrue();
        }
    }

    private static ConnectionString conn(String hostAndPort) {
        return ConnectionString.parse("host=" + hostAndPort + " user=" + TestPostgres.SUPERUSER + " dbname=postgres");
    }

    private static void terminate(TestPostgres pg, int pid) throws Exception {
        try (Connection admin = pg.connect("postgres"); Statement st = admin.createStatement()) {
            st.execute("select pg_terminate_backend(" + pid + ")");
        }
    }
}
