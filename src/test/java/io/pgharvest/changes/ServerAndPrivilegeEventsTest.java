package io.pgharvest.changes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.pgharvest.kind.FetchedRows;
import io.pgharvest.kind.ResultSetMapper;
import io.pgharvest.model.Measurement;
import io.pgharvest.testsupport.RecordingPublisher;
import io.pgharvest.testsupport.TestPostgres;
import java.io.InputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Privilege changes, server restarts and role changes come out as pgwatch's privilege_changes and
 * object_changes rows, detected from the built-in catalog's own privilege_changes and db_stats SQL
 * read from real servers before and after GRANT/REVOKE, a restart and a promotion.
 */
class ServerAndPrivilegeEventsTest {

    private final RecordingPublisher sinks = new RecordingPublisher();
    private final ChangeEventsPublisher publisher = new ChangeEventsPublisher(sinks);

    @Test
    void grantsAndRevokesBecomeGrantAndRevokeRowsWithRoleObjectAndPrivilege() throws Exception {
        TestPostgres pg = TestPostgres.shared();
        String db = "privileges_" + Long.toHexString(System.nanoTime());
        String reader = "reader_" + Long.toHexString(System.nanoTime());
        pg.createDatabase(db);
        try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
            s.execute("create role " + reader + " nologin");
            s.execute("create table accounts (id int)");
            s.execute("grant insert on accounts to " + reader);
            read(s, pg, "privilege_changes");
            assertThat(sinks.of("src", "privilege_changes")).isEmpty();

            s.execute("grant select on accounts to " + reader);
            s.execute("revoke insert on accounts from " + reader);
            s.execute("alter role " + reader + " login");
            read(s, pg, "privilege_changes");
            s.execute("drop owned by " + reader + "; drop role " + reader);
        }

        assertThat(sinks.of("src", "privilege_changes")).singleElement().satisfies(m -> assertThat(m.rows())
                .extracting(r -> r.values().get("event") + " " + r.tags().get("role") + " " + r.values().get("object_type")
                        + " " + r.tags().get("object") + " " + r.values().get("privilege_type"))
                .containsExactlyInAnyOrder(
                        "GRANT " + reader + " table public.accounts SELECT",
                        "REVOKE " + reader + " table public.accounts INSERT",
                        "GRANT " + reader + " login_users " + reader + " LOGIN"));
        assertThat(sinks.all()).extracting(Measurement::metric).containsOnly("privilege_changes");
    }

    @Test
    void aRestartOfTheServerIsAnObjectChangesEventAndDbStatsIsStillStored() throws Exception {
        try (TestPostgres pg = TestPostgres.start(Map.of())) {
            // start times within the detector's tolerance of each other could not be told apart
            await().atMost(Duration.ofSeconds(30)).until(() -> Long.parseLong(pg.queryString("postgres",
                    "select extract(epoch from now() - pg_postmaster_start_time())::int8")) > 3);
            readDbStats(pg);
            readDbStats(pg);
            pg.stop();
            pg.start();
            readDbStats(pg);
        }

        assertThat(sinks.of("src", "db_stats")).hasSize(3);
        assertThat(sinks.of("src", "object_changes")).singleElement().satisfies(m -> assertThat(m.rows())
                .singleElement().satisfies(r -> {
                    assertThat(r.values()).containsEntry("event", "restart");
                    assertThat((String) r.values().get("details")).contains("restarted");
                }));
    }

    @Test
    void aPromotedStandbyIsARoleChangeEvent() throws Exception {
        try (TestPostgres primary = TestPostgres.start(Map.of());
                TestPostgres standby = primary.startStandby("events-standby")) {
            readDbStats(standby);
            assertThat(standby.queryString("postgres", "select pg_promote()::text")).isEqualTo("true");
            readDbStats(standby);
        }

        assertThat(sinks.of("src", "object_changes")).singleElement().satisfies(m -> assertThat(m.rows())
                .extracting(r -> r.values().get("event")).containsExactly("promote"));
    }

    private void readDbStats(TestPostgres pg) throws Exception {
        try (Connection c = pg.connect("postgres"); Statement s = c.createStatement()) {
            read(s, pg, "db_stats");
        }
    }

    private void read(Statement s, TestPostgres pg, String metric) throws Exception {
        try (ResultSet rs = s.executeQuery(catalogSql(metric, pg.majorVersion()))) {
            FetchedRows fetched = ResultSetMapper.read(rs); // as the engine maps them: tags without tag_
            Instant time = fetched.reportedTime() != null ? fetched.reportedTime() : Instant.now();
            publisher.publish(List.of(new Measurement("src", metric, time, fetched.rows(), Map.of())));
        }
    }

    /** The built-in catalog's SQL of {@code metric} for a server of {@code major}, as pgharvest picks it. */
    private static String catalogSql(String metric, int major) {
        try (InputStream in = ServerAndPrivilegeEventsTest.class.getClassLoader()
                .getResourceAsStream("catalog/metrics.yaml")) {
            JsonNode sqls = new YAMLMapper().readTree(in).path("metrics").path(metric).path("sqls");
            var byVersion = new TreeMap<Integer, String>();
            sqls.properties().forEach(e -> byVersion.put(Integer.parseInt(e.getKey()), e.getValue().asString()));
            return byVersion.floorEntry(major).getValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
