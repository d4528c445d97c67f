package io.pgharvest.alert.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.alert.AlertTransition;
import io.pgharvest.alert.rule.AlertRuleBody;
import io.pgharvest.store.postgres.PostgresConfigStore;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both storages keep what alerting needs across a restart: rules with check-and-set on the rule
 * index (a writer that read an old index changes nothing), every source's alert states, and the
 * history in time order. The PostgreSQL one is read by a second instance as the first wrote it.
 */
class AlertStorageTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    @Test
    void theFileStorageKeepsRulesStatesAndHistoryAcrossARestart() throws Exception {
        try (var storage = new FileAlertStorage(dir)) {
            exercise(storage);
        }
        try (var reopened = new FileAlertStorage(dir)) {
            assertSurvived(reopened);
        }
        Files.writeString(dir.resolve("alert-history.jsonl"), "{\"torn", java.nio.file.StandardOpenOption.APPEND);
        try (var torn = new FileAlertStorage(dir)) {
            assertThat(torn.readHistory(T0, T0.plusSeconds(3600), 10)).hasSize(2);
        }
    }

    /** The single state file of earlier versions is split into one file per source, which the next start reads. */
    @Test
    void theFileStoragesOneStateFileOfEarlierVersionsBecomesAFilePerSource() throws Exception {
        var firing = new AlertState("fp1", "mine", "pgharvest:self", AlertState.Status.FIRING,
                Map.of("alertname", "mine"), Map.of(), T0, T0.plusSeconds(1), T0.plusSeconds(2), "7");
        Files.write(dir.resolve("alert-state.json"), tools.jackson.databind.json.JsonMapper.builder().build()
                .writeValueAsBytes(Map.of("pgharvest:self", Map.of("fp1", firing))));
        try (var storage = new FileAlertStorage(dir)) {
            assertThat(storage.readStates("pgharvest:self")).containsOnlyKeys("fp1");
        }
        assertThat(dir.resolve("alert-state.json")).doesNotExist();
        assertThat(dir.resolve("alert-state/pgharvest%3Aself.json")).exists();
        try (var reopened = new FileAlertStorage(dir)) {
            assertThat(reopened.readStates("pgharvest:self").get("fp1").firingSince()).isEqualTo(T0.plusSeconds(1));
            reopened.writeStates("pgharvest:self", List.of());
        }
        assertThat(dir.resolve("alert-state/pgharvest%3Aself.json")).doesNotExist();
    }

    @Test
    void thePostgresStorageIsSharedByInstances() {
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("alert_storage");
        // the configuration store's migrations create alerting's tables
        try (var store = PostgresConfigStore.open(uri(pg, "alert_storage"), Duration.ofSeconds(1));
             var first = PostgresAlertStorage.open(uri(pg, "alert_storage"));
             var second = PostgresAlertStorage.open(uri(pg, "alert_storage"))) {
            exercise(first);
            assertSurvived(second);
        }
    }

    /**
     * An installation whose alert tables a second Flyway run made (history table
     * pgharvest_alert_schema_history, beside the store's at version 6) keeps its rules and states
     * when the store's own migrations take the tables over, and the old history table is gone.
     */
    @Test
    void anInstallationWithTheOldAlertMigrationKeepsItsRowsOnUpgrade() throws Exception {
        TestPostgres pg = TestPostgres.shared();
        pg.createDatabase("alert_upgrade");
        String uri = uri(pg, "alert_upgrade");
        try (var conn = pg.connect("alert_upgrade"); var s = conn.createStatement()) {
            var dataSource = new org.postgresql.ds.PGSimpleDataSource();
            dataSource.setURL("jdbc:postgresql://" + pg.host() + ":" + pg.port() + "/alert_upgrade");
            dataSource.setUser(TestPostgres.SUPERUSER);
            Flyway.configure().dataSource(dataSource).schemas("pgharvest_config")
                    .table("pgharvest_store_schema_history").locations("classpath:db/store-postgres").target("6")
                    .load().migrate();
            s.execute("SET search_path = pgharvest_config");
            // what the alert tables' own migration (until 6.46) created, as it created them
            s.execute("""
                    CREATE TABLE pgharvest_alert_schema_history (installed_rank int PRIMARY KEY);
                    CREATE TABLE alert_rule_index (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                        rule_index bigint NOT NULL);
                    INSERT INTO alert_rule_index VALUES (true, 0);
                    CREATE TABLE alert_rule (name text PRIMARY KEY, body jsonb NOT NULL, modify_index bigint NOT NULL);
                    CREATE TABLE alert_state (source text NOT NULL, fingerprint text NOT NULL, body jsonb NOT NULL,
                        PRIMARY KEY (source, fingerprint));
                    CREATE TABLE alert_history (id bigserial PRIMARY KEY, at timestamptz NOT NULL,
                        fingerprint text NOT NULL, body jsonb NOT NULL);
                    CREATE INDEX alert_history_at ON alert_history (at);
                    """);
        }
        try (var old = PostgresAlertStorage.open(uri)) {
            exercise(old);
        }
        try (var store = PostgresConfigStore.open(uri, Duration.ofSeconds(1));
             var upgraded = PostgresAlertStorage.open(uri);
             var conn = pg.connect("alert_upgrade"); var s = conn.createStatement()) {
            assertSurvived(upgraded);
            try (var rs = s.executeQuery("SELECT to_regclass('pgharvest_config.pgharvest_alert_schema_history') IS NULL,"
                    + " (SELECT max(version) FROM pgharvest_config.pgharvest_store_schema_history"
                    + " WHERE version IS NOT NULL AND version LIKE '6%')")) {
                rs.next();
                assertThat(rs.getBoolean(1)).as("the old alert schema history is dropped").isTrue();
                assertThat(rs.getString(2)).isEqualTo("6.46");
            }
        }
    }

    private static String uri(TestPostgres pg, String database) {
        return "postgresql://" + TestPostgres.SUPERUSER + "@" + pg.host() + ":" + pg.port() + "/" + database;
    }

    private static void exercise(AlertStorage storage) {
        var body = new AlertRuleBody("mine", "backends", "total > 1", "1s", null, "warning", null, null, null, null,
                null, null, null, null);
        assertThat(storage.writeRule(0, 1, "mine", new StoredRule(body, 1))).isTrue();
        assertThat(storage.writeRule(0, 2, "other", new StoredRule(body.named("other"), 2)))
                .as("a writer that read index 0 after index 1 was written").isFalse();
        assertThat(storage.rulesIndex()).isEqualTo(1);

        var firing = new AlertState("fp1", "mine", "db1", AlertState.Status.FIRING, Map.of("alertname", "mine"),
                Map.of("summary", "<b>x</b>"), T0, T0.plusSeconds(1), T0.plusSeconds(2), "7");
        storage.writeStates("db1", List.of(firing));
        storage.writeStates("db2", List.of(new AlertState("fp2", "mine", "db2", AlertState.Status.PENDING, Map.of(),
                Map.of(), T0, null, T0, "")));
        storage.writeStates("db2", List.of());
        storage.appendHistory(new AlertTransition("fp1", AlertTransition.State.FIRING, firing.labels(),
                firing.annotations(), T0.plusSeconds(1), T0.plusSeconds(120), "7"));
        storage.appendHistory(new AlertTransition("fp1", AlertTransition.State.RESOLVED, firing.labels(),
                firing.annotations(), T0.plusSeconds(1), T0.plusSeconds(60), "7"));
    }

    private static void assertSurvived(AlertStorage storage) {
        StoredRule.Table rules = storage.readRules();
        assertThat(rules.index()).isEqualTo(1);
        assertThat(rules.rules()).containsOnlyKeys("mine");
        assertThat(rules.rules().get("mine").body().forDuration()).isEqualTo("1s");
        assertThat(storage.readStates("db1")).containsOnlyKeys("fp1");
        assertThat(storage.readStates("db1").get("fp1").firingSince()).isEqualTo(T0.plusSeconds(1));
        assertThat(storage.readStates("db1").get("fp1").annotations()).containsEntry("summary", "<b>x</b>");
        assertThat(storage.readStates("db2")).isEmpty();
        List<AlertTransition> history = storage.readHistory(T0, T0.plusSeconds(3600), 10);
        assertThat(history).extracting(AlertTransition::state)
                .containsExactly(AlertTransition.State.FIRING, AlertTransition.State.RESOLVED);
        assertThat(storage.readHistory(T0.plusSeconds(30), T0.plusSeconds(3600), 10)).hasSize(1);
    }
}
