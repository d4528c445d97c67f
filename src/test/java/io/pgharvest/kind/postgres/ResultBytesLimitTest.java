package io.pgharvest.kind.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.embedded.ServerAccount;
import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.MetricQuery;
import io.pgharvest.kind.ResultLimits;
import io.pgharvest.kind.SessionSettings;
import io.pgharvest.model.connection.ConnectionString;
import io.pgharvest.testsupport.SelfSignedCertificate;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A metric whose result passes the byte limit fails alone, naming the limit, on a real server, in
 * plain TCP and under TLS: the rows past the limit are dropped as they arrive (one 50 MB row is
 * never allocated), pgjdbc sees a whole, shorter result, and the session carries on with the same
 * backend. The limit is 16 MB here (the default is 64 MB).
 */
class ResultBytesLimitTest {

    private static final String DB = "result_bytes_db";
    private static final long LIMIT = 16L * 1024 * 1024;
    private static final String NAMED_LIMIT = "more than 16MB of rows (pgharvest.reaper.max-result-bytes)";
    private static final MetricQuery PID = query("pid", "select pg_backend_pid() as pid");
    private static final MetricQuery SMALL = query("small", "select 1 as a");
    private static final MetricQuery WIDE_ROW = query("wide_row", "select repeat('x', 50 * 1024 * 1024) as big");
    private static final MetricQuery MANY_ROWS = query("many_rows",
            "select n, repeat('y', 1000) as v from generate_series(1, 90000) n");
    /** 10 MB in 10,000 rows: under the limit, so delivered whole. */
    private static final MetricQuery UNDER_LIMIT = query("under_limit",
            "select n, repeat('z', 1000) as v from generate_series(1, 10000) n");
    private static final MetricQuery TLS_IN_USE = query("tls",
            "select ssl from pg_catalog.pg_stat_ssl where pid = pg_backend_pid()");

    private static final TestPostgres plain = TestPostgres.shared();
    private static Path certificateDir;
    private static TestPostgres tls;

    @BeforeAll
    static void startServers() throws Exception {
        plain.createDatabase(DB);
        certificateDir = Files.createTempDirectory("pgharvest-tls-");
        var certificate = SelfSignedCertificate.makeIn(certificateDir, ServerAccount.detect());
        tls = TestPostgres.start(Map.of("ssl", "on",
                "ssl_cert_file", certificate.certificate().toString(), "ssl_key_file", certificate.key().toString()));
        tls.createDatabase(DB);
    }

    @AfterAll
    static void stopServers() throws IOException {
        if (tls != null) {
            tls.close();
        }
        if (certificateDir != null) {
            try (var files = Files.walk(certificateDir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void aFiftyMegabyteRowFailsItsMetricUnallocatedAndTheSessionCarriesOn() throws Exception {
        try (var session = open(plain, "sslmode=disable")) {
            assertWideRowFailsAlone(session);
        }
    }

    @Test
    void manySmallRowsPastTheLimitFailTheirMetricAndTheSessionCarriesOn() throws Exception {
        try (var session = open(plain, "sslmode=disable")) {
            assertManyRowsFailAlone(session);
        }
    }

    @Test
    void underTlsAFiftyMegabyteRowFailsItsMetricUnallocatedAndTheSessionCarriesOn() throws Exception {
        try (var session = open(tls, "sslmode=require")) {
            assertThat(value(session.run(List.of(TLS_IN_USE)).getFirst(), "ssl")).isEqualTo(true);
            assertWideRowFailsAlone(session);
        }
    }

    @Test
    void underTlsManySmallRowsPastTheLimitFailTheirMetricAndTheSessionCarriesOn() throws Exception {
        try (var session = open(tls, "sslmode=require")) {
            assertThat(value(session.run(List.of(TLS_IN_USE)).getFirst(), "ssl")).isEqualTo(true);
            assertManyRowsFailAlone(session);
        }
    }

    @Test
    void aNativeReadPastTheLimitFailsNamingTheLimit() throws Exception {
        try (var session = open(plain, "sslmode=disable")) {
            Object pid = value(session.run(List.of(PID)).getFirst(), "pid");
            assertThatThrownBy(() -> session.read("select repeat('x', 20 * 1024 * 1024) as big"))
                    .isInstanceOf(SQLException.class).hasMessageContaining(NAMED_LIMIT);
            assertThatThrownBy(() -> session.read(Duration.ofSeconds(30), "select repeat('x', 20 * 1024 * 1024) as big"))
                    .isInstanceOf(SQLException.class).hasMessageContaining(NAMED_LIMIT);
            assertThat(((Number) session.read("select pg_backend_pid() as pid").getFirst().get("pid")).longValue())
                    .isEqualTo(pid);
        }
    }

    private static void assertWideRowFailsAlone(PostgresSession session) throws SQLException {
        Object pid = value(session.run(List.of(PID)).getFirst(), "pid");
        long allocatedBefore = allocatedByThisThread();
        assertThatThrownBy(() -> session.run(List.of(PID, WIDE_ROW, SMALL)))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("metric wide_row returned " + NAMED_LIMIT);
        long allocated = allocatedByThisThread() - allocatedBefore;
        assertThat(allocated).as("bytes allocated while 50 MB arrived").isLessThan(8L * 1024 * 1024);
        assertSessionCarriesOn(session, pid);
    }

    private static void assertManyRowsFailAlone(PostgresSession session) throws SQLException {
        Object pid = value(session.run(List.of(PID)).getFirst(), "pid");
        assertThatThrownBy(() -> session.run(List.of(PID, SMALL, MANY_ROWS)))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("metric many_rows returned " + NAMED_LIMIT);
        assertSessionCarriesOn(session, pid);
        assertThatThrownBy(() -> session.runAlone(MANY_ROWS)).hasMessageContaining("metric many_rows returned " + NAMED_LIMIT);
        assertSessionCarriesOn(session, pid);
    }

    /** The same backend answers the next round trip, whole, also a result of 10 MB. */
    private static void assertSessionCarriesOn(PostgresSession session, Object pid) throws SQLException {
        List<FetchedRows> results = session.run(List.of(PID, SMALL, UNDER_LIMIT));
        assertThat(value(results.get(0), "pid")).isEqualTo(pid);
        assertThat(value(results.get(1), "a")).isEqualTo(1L);
        assertThat(results.get(2).rows()).hasSize(10_000);
        assertThat(results.get(2).rows().getLast().values().get("v")).isEqualTo("z".repeat(1000));
    }

    private static PostgresSession open(TestPostgres server, String parameters) throws SQLException {
        var opener = new SessionOpener(new SessionSettings(Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofSeconds(1), Duration.ofMinutes(2), false, true, new ResultLimits(100_000, LIMIT)));
        return PostgresSession.open(opener, ConnectionString.parse("postgresql://" + TestPostgres.SUPERUSER + "@"
                + server.host() + ":" + server.port() + "/" + DB + "?" + parameters), Instant.now());
    }

    private static MetricQuery query(String metric, String sql) {
        return new MetricQuery(metric, sql, Duration.ofSeconds(30));
    }

    private static Object value(FetchedRows rows, String column) {
        assertThat(rows.rows()).hasSize(1);
        return rows.rows().getFirst().values().get(column);
    }

    private static long allocatedByThisThread() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
