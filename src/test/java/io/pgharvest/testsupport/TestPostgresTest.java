package io.pgharvest.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TestPostgresTest {

    private static TestPostgres own;

    @BeforeAll
    static void startOwnServer() {
        own = TestPostgres.start(Map.of("work_mem", "7MB"));
    }

    @AfterAll
    static void closeOwnServer() {
        if (own != null) {
            own.close();
        }
    }

    @Test
    void sharedServerRunsTheMajorVersionChosenByPgVersion() {
        TestPostgres shared = TestPostgres.shared();

        int versionNum = Integer.parseInt(
                shared.queryString("postgres", "select current_setting('server_version_num')"));

        assertThat(versionNum / 10000).isEqualTo(TestPostgres.configuredMajorVersion());
        assertThat(shared.majorVersion()).isEqualTo(TestPostgres.configuredMajorVersion());
        assertThat(shared.serverVersionNum()).isEqualTo(versionNum);
    }

    @Test
    void sharedServerRecordsStatementsInPgStatStatements() {
        TestPostgres shared = TestPostgres.shared();
        shared.createDatabase("testpostgres_pgss");
        shared.createDatabase("testpostgres_pgss");
        shared.execute("testpostgres_pgss", """
                create extension if not exists pg_stat_statements;
                create table if not exists pgss_probe (x int);
                select count(*) from pgss_probe;
                """);

        String calls = shared.queryString("testpostgres_pgss",
                "select sum(calls) from pg_stat_statements where query like 'select count(*) from pgss_probe%'");

        assertThat(Long.parseLong(calls)).isPositive();
        assertThat(shared.queryString("postgres", "show max_connections")).isEqualTo("400");
    }

    @Test
    void sharedServerCannotBeStoppedByOneTest() {
        TestPostgres shared = TestPostgres.shared();

        assertThatThrownBy(shared::stop).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(shared::close).isInstanceOf(IllegalStateException.class);
        assertThat(shared.isRunning()).isTrue();
    }

    @Test
    void ownServerAppliesRequestedSettings() {
        assertThat(own.queryString("postgres", "show work_mem")).isEqualTo("7MB");
        assertThat(own.queryString("postgres", "show fsync")).isEqualTo("off");
    }

    @Test
    void settingsTheLauncherOwnsAreRejected() {
        assertThatThrownBy(() -> TestPostgres.start(Map.of("port", "5432")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port");
    }

    @Test
    void failedStartReportsTheTailOfTheServerLog() {
        assertThatThrownBy(() -> TestPostgres.start(Map.of("shared_preload_libraries", "no_such_library")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("did not start")
                .hasMessageContaining("could not access file \"no_such_library\"");
    }

    @Test
    void stopThenStartKeepsDataAndPort() {
        own.createDatabase("restart_data");
        own.execute("restart_data", "create table kept (v text); insert into kept values ('survives')");
        int portBefore = own.port();

        own.stop();
        assertThat(own.isRunning()).isFalse();
        own.start();

        assertThat(own.isRunning()).isTrue();
        assertThat(own.port()).isEqualTo(portBefore);
        assertThat(own.queryString("restart_data", "select v from kept")).isEqualTo("survives");
        assertThat(own.queryString("postgres", "show port")).isEqualTo(Integer.toString(portBefore));
    }

    @Test
    void connectionOpenAcrossStopFailsAndANewOneWorksAfterStart() throws SQLException {
        try (Connection before = own.connect("postgres")) {
            assertThat(selectOne(before)).isEqualTo(1);

            own.stop();
            assertThatThrownBy(() -> selectOne(before)).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> own.connect("postgres")).isInstanceOf(SQLException.class);
            own.start();
        }
        try (Connection after = DriverManager.getConnection(own.jdbcUrl("postgres"))) {
            assertThat(selectOne(after)).isEqualTo(1);
        }
    }

    @Test
    void replacedHbaConfRequiresPasswordsForOtherUsers() throws SQLException {
        own.execute("postgres", "drop role if exists hba_probe; create role hba_probe login password 'right-pw'");
        own.replaceHbaConf("""
                host all postgres 127.0.0.1/32 trust
                host all all 127.0.0.1/32 scram-sha-256
                """);
        String url = "jdbc:postgresql://127.0.0.1:" + own.port() + "/postgres";

        try (Connection withPassword = DriverManager.getConnection(url, "hba_probe", "right-pw")) {
            assertThat(selectOne(withPassword)).isEqualTo(1);
        }
        assertThatThrownBy(() -> DriverManager.getConnection(url, "hba_probe", "wrong-pw"))
                .isInstanceOf(SQLException.class)
                .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("28P01");
        assertThatThrownBy(() -> own.replaceHbaConf("host all all 127.0.0.1/32 no-such-method\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 1");
        // a rejected file stays on disk and would stop the next start of this server
        own.replaceHbaConf("host all all 127.0.0.1/32 trust\n");
    }

    @Test
    void connStrIsALibpqUriForTheSuperuser() {
        assertThat(own.connStr("orders")).isEqualTo("postgresql://postgres@127.0.0.1:" + own.port() + "/orders");
        assertThat(own.jdbcUrl("orders"))
                .isEqualTo("jdbc:postgresql://127.0.0.1:" + own.port() + "/orders?user=postgres");
    }

    private static int selectOne(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("select 1")) {
            rows.next();
            return rows.getInt(1);
        }
    }
}
