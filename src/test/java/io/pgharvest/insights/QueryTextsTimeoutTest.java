package io.pgharvest.insights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.kind.SessionSettings;
import io.pgharvest.kind.SourceSession;
import io.pgharvest.kind.postgres.ConnectionTester;
import io.pgharvest.kind.postgres.PostgresEndpoint;
import io.pgharvest.kind.postgres.SessionOpener;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.nativemetric.NativeTarget;
import io.pgharvest.nativemetric.SourceShelf;
import io.pgharvest.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * query_texts runs under its own time limit, not the session's: a texts read held up (by a lock
 * on pg_database, which its query reads) is cancelled by the server at query_texts' limit while
 * the session's default statement and lock timeouts are two minutes; the session stays usable and
 * the next read delivers the texts.
 */
class QueryTextsTimeoutTest {

    private static final String DB = "insights_plans";

    @Test
    @Timeout(value = 100, unit = TimeUnit.SECONDS) // the session's own limits (120 s) would end it later
    void aSlowTextsReadEndsAtQueryTextsOwnTimeout() throws Exception {
        try (TestPostgres server = QueryPlansCollectorTest.startServer(16);
                SourceSession session = patientSession(server); Connection locker = server.connect("postgres")) {
            var texts = new QueryTextsCollector(Duration.ofMillis(500));
            server.execute(DB, "select 1 as timeout_probe");
            texts.collect(target(session)); // finds the extension
            server.execute(DB, "select 2 + 3 as timeout_probe_two"); // another shape: aliases are not part of a query id

            locker.setAutoCommit(false);
            try (Statement st = locker.createStatement()) {
                st.execute("lock table pg_catalog.pg_database in access exclusive mode");
                assertThatThrownBy(() -> texts.collect(target(session))).isInstanceOf(SQLException.class)
                        .hasMessageContaining("statement timeout")
                        .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("57014");
            } finally {
                locker.rollback();
            }
            assertThat(texts.collect(target(session)))
                    .anySatisfy(r -> assertThat(r.values().get("query")).isEqualTo("select $1 + $2 as timeout_probe_two"));
        }
    }

    private static SourceSession patientSession(TestPostgres server) throws Exception {
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), Duration.ofMinutes(2),
                Duration.ofMinutes(2), Duration.ofMinutes(5), true, false));
        return new PostgresEndpoint(opener, new ConnectionTester(opener)).open(ConnectionString.parse(
                "postgresql://plans_monitor@" + server.host() + ":" + server.port() + "/" + DB), Instant.now());
    }

    private static NativeTarget target(SourceSession session) {
        return new NativeTarget("texts", DB, 16, ":0", true, new QueryPlansCollectorTest.SessionReader(session),
                Duration.ofSeconds(600), Instant.now(), null, login -> {
                    throw new SQLException("not used");
                }, new SourceShelf());
    }
}
