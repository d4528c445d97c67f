package io.pgharvest.kind.postgres;

import io.pgharvest.kind.SessionSettings;
import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.support.wire.SessionSockets;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * The server, port and database of a session reach pgjdbc as its own properties, never pasted into
 * a URL: text in a database name that looks like URL parameters stays part of the name.
 */
class SessionOpenerTest {

    private final SessionOpener opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(5),
            Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofMinutes(1)));

    @Test
    void aDatabaseNameThatLooksLikeUrlParametersIsOnlyAName() throws SQLException {
        TestPostgres pg = TestPostgres.shared();
        String odd = "q?ApplicationName=evil&readOnly=false&options=-c%20x%3Dy";
        pg.createDatabase(odd);
        ConnectionString conn = ConnectionString.parse("host=" + pg.host() + " port=" + pg.port() + " user="
                + TestPostgres.SUPERUSER + " dbname='" + odd + "'");

        try (Connection session = opener.open(conn); Statement st = session.createStatement();
             ResultSet rs = st.executeQuery("select current_database(), current_setting('application_name'),"
                     + " current_setting('default_transaction_read_only')")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualTo(odd);
            assertThat(rs.getString(2)).isEqualTo(SessionSettings.APPLICATION_NAME);
            assertThat(rs.getString(3)).isEqualTo("on");
        }
    }

    @Test
    void everyHostAndPortTravelsAsPgjdbcProperties() {
        ConnectionString conn = ConnectionString.parse("postgresql://u@[::1]:5433,db2.example:5434/orders");

        var props = opener.properties(conn, Duration.ofSeconds(5));

        assertThat(props.getProperty("PGHOST")).isEqualTo("[::1],db2.example");
        assertThat(props.getProperty("PGPORT")).isEqualTo("5433,5434");
        assertThat(props.getProperty("PGDBNAME")).isEqualTo("orders");
        // The server then refuses a Parse message with several commands: never simple mode.
        assertThat(props.getProperty("preferQueryMode")).isEqualTo("extended");
    }

    @Test
    void theShorterOfTheBoundAndTheStringsConnectTimeoutBoundsLoginInWholeSeconds() {
        var shorter = opener.properties(ConnectionString.parse("host=h connect_timeout=3"), Duration.ofSeconds(5));
        assertThat(shorter.getProperty("connectTimeout")).isEqualTo("3");
        assertThat(shorter.getProperty("socketTimeout")).isEqualTo("3");
        var longer = opener.properties(ConnectionString.parse("host=h connect_timeout=9"), Duration.ofMillis(4200));
        assertThat(longer.getProperty("connectTimeout")).isEqualTo("5");
        var noLimit = opener.properties(ConnectionString.parse("host=h connect_timeout=0"), Duration.ofMillis(300));
        assertThat(noLimit.getProperty("connectTimeout")).isEqualTo("1");
    }

    /**
     * The session's socket is captured at login ({@link SessionSockets}) and tells, without a read,
     * when the server has sent something on an idle session ({@link ArrivedBytes}): nothing after a
     * finished query, bytes once the backend is terminated (the server's 57P01 before it closes).
     */
    @Test
    void theLoginsSocketIsKeptAndShowsNothingWaitingUntilTheServerEndsTheSession() throws Exception {
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
