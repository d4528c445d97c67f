package io.pgharvest.reaper;

import static io.pgharvest.reaper.ReaperTestKit.metric;
import static io.pgharvest.reaper.ReaperTestKit.source;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.kind.postgres.ConnectionTester;
import io.pgharvest.kind.postgres.PostgresEndpoint;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.model.SessionState;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A source whose role can do more than read is flagged, and refused when the operator says so. */
class PrivilegedSourceTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

    @BeforeAll
    static void roles() {
        pg.createDatabase("privileged_db");
        pg.execute("privileged_db", """
                do $$ begin
                  if not exists (select from pg_roles where rolname = 'priv_monitor') then
                    create role priv_monitor login; grant pg_monitor to priv_monitor;
                  end if;
                  if not exists (select from pg_roles where rolname = 'priv_writer') then
                    create role priv_writer login;
                  end if;
                end $$;
                create table if not exists orders (id int);
                grant insert on orders to priv_writer;
                """);
    }

    private static ConnectionString as(String user) {
        return ConnectionString.parse("postgresql://" + user + "@" + pg.host() + ":" + pg.port() + "/privileged_db");
    }

    /** A session as the engine opens one, through the kind's endpoint. */
    private static SourceSession open(SessionOpener opener, ConnectionString conn) throws SQLException {
        return new PostgresEndpoint(opener, new ConnectionTester(opener)).open(conn, NOW);
    }

    private static SessionOpener opener(boolean refuse) {
        return new SessionOpener(new SessionSettings(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(1),
                Duration.ofMinutes(1), refuse, true));
    }

    @Test
    void aSuperuserLoginIsRefusedUnlessAllowedAndAPgMonitorRoleIsNot() throws Exception {
        var byDefault = new SessionOpener(new SessionSettings(Duration.ofSeconds(2), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofMinutes(1), false, false));
        assertThatThrownBy(() -> open(byDefault, as(TestPostgres.SUPERUSER)))
                .isInstanceOf(SQLException.class).hasMessageContaining("is a superuser")
                .hasMessageContaining("pgharvest.security.allow-superuser-sources")
                .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("42501");
        var tested = new ConnectionTester(byDefault)
                .testPostgres(as(TestPostgres.SUPERUSER), Duration.ofSeconds(5));
        assertThat(tested.reachable()).isFalse();
        assertThat(tested.error()).contains("is a superuser");
        assertThat(tested.sqlState()).isEqualTo("42501");
        try (var monitor = open(byDefault, as("priv_monitor"))) {
            assertThat(monitor.privileges().superuser()).isFalse();
        }
    }

    @Test
    void aSuperuserOrAWriterIsFlaggedAndAPgMonitorRoleIsNot() throws Exception {
        try (var superuser = open(opener(false), as(TestPostgres.SUPERUSER));
                var writer = open(opener(false), as("priv_writer"));
                var monitor = open(opener(false), as("priv_monitor"))) {
            assertThat(superuser.privileges().warning()).contains("superuser").contains("pg_monitor");
            assertThat(writer.privileges().warning()).contains("can write").contains("orders");
            assertThat(monitor.privileges().warning()).isNull();
        }
    }

    @Test
    void refusingPrivilegedSourcesRefusesASuperuserButNotAPgMonitorRole() throws Exception {
        assertThatThrownBy(() -> open(opener(true), as(TestPostgres.SUPERUSER)))
                .isInstanceOf(SQLException.class).hasMessageContaining("refused")
                .hasMessageContaining("pgharvest.reaper.refuse-privileged-sources");
        try (var monitor = open(opener(true), as("priv_monitor"))) {
            assertThat(monitor.privileges().privileged()).isFalse();
        }
    }

    @Test
    void theStatusOfASuperuserSourceCarriesTheWarning() throws Exception {
        var kit = new ReaperTestKit();
        var timer = new ManualTickTimer(NOW.plusMillis(300));
        var reaper = new SourceReaper(ReaperTestKit.config(source("su", pg.connStr("privileged_db"), Map.of("one", 10)),
                List.of(metric("one", "select 1 as a"))), kit.context, timer);
        var status = ReaperTestKit.runFirstTick(reaper, timer);

        assertThat(status.state()).isEqualTo(SessionState.CONNECTED);
        assertThat(status.privilegeWarning()).contains("superuser");
    }
}
