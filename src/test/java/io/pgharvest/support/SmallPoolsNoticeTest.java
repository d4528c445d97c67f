package io.pgharvest.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.pgharvest.embedded.ServerAccount;
import io.pgharvest.support.wire.OwnSessions;
import io.pgharvest.support.wire.ResultBytesBound;
import io.pgharvest.testsupport.SelfSignedCertificate;
import io.pgharvest.testsupport.TestPostgres;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The owner of a database pgharvest writes to (the configuration store, a PostgreSQL sink, the
 * fleet's leases) floods a pooled session with notices: a function raising 20,000 notices of 4 KB
 * (80 MB) in one round trip, here run by a statement, there by a trigger during a COPY (40 MB). Every pool
 * of {@link SmallPools} reads through the same notice bound as a monitoring session, armed on each
 * physical connection by itself: the round trip allocates a few MB, the statement's result is
 * right, pgjdbc sees {@link ResultBytesBound#NOTICES_KEPT} warnings, every other notice is counted
 * as dropped, and the connection carries on. Before, pgjdbc chained all 20,000 as SQLWarnings.
 * Plain, TLS refused by the server (the SSLRequest's answer read before the startup), and TLS.
 */
class SmallPoolsNoticeTest {

    private static final String DB = "small_pools_notice_db";
    private static final int NOTICES = 20_000;
    private static final long ALLOCATION_BOUND = 16L * 1024 * 1024;
    /** 80 MB of TLS records cost the JDK about 32 MB of short-lived buffers whatever is read; 800 MB before. */
    private static final long TLS_ALLOCATION_BOUND = 64L * 1024 * 1024;
    private static final String NOISY = """
            create or replace function public.noisy(n int, size int) returns int language plpgsql volatile as $f$
            begin
                for i in 1 .. n loop
                    raise notice '%', repeat('n', size);
                end loop;
                return n;
            end $f$""";

    private static final TestPostgres plain = TestPostgres.shared();
    private static Path certificateDir;
    private static TestPostgres tls;

    @BeforeAll
    static void startServers() throws Exception {
        certificateDir = Files.createTempDirectory("pgharvest-tls-");
        var certificate = SelfSignedCertificate.makeIn(certificateDir, ServerAccount.detect());
        tls = TestPostgres.start(Map.of("ssl", "on",
                "ssl_cert_file", certificate.certificate().toString(), "ssl_key_file", certificate.key().toString()));
        for (TestPostgres server : new TestPostgres[] {plain, tls}) {
            server.createDatabase(DB);
            server.execute(DB, NOISY);
        }
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

    @ParameterizedTest
    @ValueSource(strings = {"disable", "prefer", "require"})
    void aPooledStatementRaisingEightyMegabytesOfNoticesAllocatesAFewAndTheDropsAreCounted(String sslmode)
            throws Exception {
        TestPostgres server = sslmode.equals("require") ? tls : plain;
        try (var pool = pool(server, sslmode);
                Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            for (int round = 1; round <= 2; round++) {
                long droppedBefore = OwnSessions.droppedNotices();
                long before = allocatedByThisThread();
                try (var rs = s.executeQuery("select public.noisy(" + NOTICES + ", 4000) as n")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).isEqualTo(NOTICES);
                }
                long allocated = allocatedByThisThread() - before;

                assertThat(warnings(s.getWarnings())).isEqualTo(ResultBytesBound.NOTICES_KEPT);
                assertThat(OwnSessions.droppedNotices() - droppedBefore)
                        .isGreaterThanOrEqualTo(NOTICES - ResultBytesBound.NOTICES_KEPT);
                // The JDK's TLS decrypts each record into a buffer of its own: garbage, never held.
                long bound = sslmode.equals("require") ? TLS_ALLOCATION_BOUND : ALLOCATION_BOUND;
                assertThat(allocated).as("bytes allocated while 80 MB of notices arrived").isLessThan(bound);
                s.clearWarnings();
            }
            try (var rs = s.executeQuery("select ssl from pg_catalog.pg_stat_ssl where pid = pg_backend_pid()")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getBoolean(1)).isEqualTo(sslmode.equals("require"));
            }
        }
    }

    @Test
    void aTriggerRaisingNoticesDuringACopyIsBoundedToo() throws Exception {
        plain.execute(DB, "create table if not exists public.copied (n int)");
        plain.execute(DB, "create or replace function public.noisy_row() returns trigger language plpgsql as $f$"
                + " begin perform public.noisy(100, 4000); return new; end $f$");
        plain.execute(DB, "drop trigger if exists noisy_copy on public.copied");
        plain.execute(DB, "create trigger noisy_copy before insert on public.copied for each row"
                + " execute function public.noisy_row()");
        try (var pool = pool(plain, "disable"); Connection c = pool.getConnection()) {
            long droppedBefore = OwnSessions.droppedNotices();
            long before = allocatedByThisThread();
            var copy = new org.postgresql.copy.CopyManager(c.unwrap(org.postgresql.core.BaseConnection.class));
            long rows = copy.copyIn("copy public.copied (n) from stdin",
                    new java.io.ByteArrayInputStream("1\n".repeat(100).getBytes()));
            long allocated = allocatedByThisThread() - before;

            assertThat(rows).isEqualTo(100);
            assertThat(allocated).as("bytes allocated while 80 MB of notices arrived").isLessThan(ALLOCATION_BOUND);
            assertThat(OwnSessions.droppedNotices() - droppedBefore).isGreaterThanOrEqualTo(100 * 100 - ResultBytesBound.NOTICES_KEPT);
        }
    }

    private static HikariDataSource pool(TestPostgres server, String sslmode) {
        var properties = new Properties();
        properties.setProperty("sslmode", sslmode);
        return new HikariDataSource(SmallPools.config("notice-test", server.jdbcUrl(DB), properties, 2,
                "set statement_timeout = '60s'"));
    }

    private static int warnings(SQLWarning first) {
        int n = 0;
        for (SQLWarning w = first; w != null; w = w.getNextWarning()) {
            n++;
        }
        return n;
    }

    private static long allocatedByThisThread() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
