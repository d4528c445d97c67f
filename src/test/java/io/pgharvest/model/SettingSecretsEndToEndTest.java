package io.pgharvest.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.RunningApp;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A server's settings reach no sink with their secrets: a private server whose
 * {@code primary_conninfo} carries a replication password (key=value), whose {@code archive_command}
 * and {@code restore_command} carry credentials and whose extension setting holds a connection URI
 * with a password is collected as a pg_monitor role (which reads every setting) by the built-in
 * {@code settings} and {@code configuration_hashes} metrics and by two metrics written as pgwatch
 * writes them (name/setting columns from pg_settings, and a wide row of current_setting columns),
 * into a JSON lines file and the PostgreSQL sink. No secret appears there, in the API's answers or in
 * the log; the rest of each value does. A source that keeps command settings gets the commands, and
 * still no password of a connection string.
 */
@ExtendWith(OutputCaptureExtension.class)
class SettingSecretsEndToEndTest {

    private static final String REPLICATION_SECRET = "repl-secret-4711";
    private static final String ARCHIVE_SECRET = "arch-secret-8812";
    private static final String RESTORE_SECRET = "rest-secret-9913";
    private static final String URI_SECRET = "uri-secret-3344";
    private static final String STORAGE_DB = "setting_secrets_storage";
    /** configuration_hashes is compared, not stored: its values reach the sinks as configuration_changes. */
    private static final List<String> STORED = List.of("settings", "pgw_settings_rows", "pgw_settings_wide");
    private static final TestPostgres storage = TestPostgres.shared();
    private static TestPostgres server;

    @BeforeAll
    static void startServer() {
        server = TestPostgres.start(Map.of(
                "primary_conninfo", "host=replica-source.invalid port=5433 user=replicator password=" + REPLICATION_SECRET
                        + " sslpassword=" + REPLICATION_SECRET + "-ssl application_name=standby_a",
                // archive_mode on, else the server shows archive_command as "(disabled)"; true archives nothing.
                "archive_mode", "on",
                "archive_command", "true --user=archiver:" + ARCHIVE_SECRET + " %p",
                "restore_command", "curl -s -u restorer:" + RESTORE_SECRET + " -o %p https://backup.invalid/%f",
                "pgharvest_test.dsn", "postgresql://app:" + URI_SECRET + "@db.invalid:6432/app?sslmode=require"));
        server.execute("postgres", "create role settings_monitor login in role pg_monitor");
        storage.createDatabase(STORAGE_DB);
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void noSecretOfAnySettingReachesTheSinksTheApiOrTheLog(@TempDir Path dataDir, CapturedOutput log) throws Exception {
        Path jsonFile = dataDir.resolve("out.jsonl");
        try (RunningApp app = RunningApp.start(dataDir,
                "--pgharvest.sinks[0].type=postgres", "--pgharvest.sinks[0].url=" + storage.connStr(STORAGE_DB),
                "--pgharvest.sinks[0].batch-delay=100ms",
                "--pgharvest.sinks[1].type=jsonfile", "--pgharvest.sinks[1].path=" + jsonFile)) {
            ApiClient api = app.api();
            // pgwatch's shapes: a row per setting with name and setting columns, and one wide row.
            assertThat(api.post("/api/v1/metrics", Map.of("name", "pgw_settings_rows", "sqls", Map.of("14",
                    "select name, setting from pg_settings where name in ('primary_conninfo', 'archive_command',"
                            + " 'restore_command', 'work_mem')"
                            // pg_settings hides placeholders: the extension's setting as an extension would show it
                            + " union all select 'pgharvest_test.dsn', current_setting('pgharvest_test.dsn')")))
                    .status()).isEqualTo(201);
            assertThat(api.post("/api/v1/metrics", Map.of("name", "pgw_settings_wide", "sqls", Map.of("14",
                    "select current_setting('primary_conninfo') as primary_conninfo,"
                            + " current_setting('archive_command') as archive_command,"
                            + " current_setting('work_mem') as work_mem"))).status()).isEqualTo(201);
            Map<String, Integer> metrics = Map.of("settings", 1, "configuration_hashes", 1, "pgw_settings_rows", 1,
                    "pgw_settings_wide", 1);
            String connStr = "postgresql://settings_monitor@" + server.host() + ":" + server.port() + "/postgres";
            assertThat(api.post("/api/v1/sources", Map.of("name", "masked", "connStr", connStr, "metrics", metrics))
                    .status()).isEqualTo(201);
            var kept = api.post("/api/v1/sources", Map.of("name", "kept", "connStr", connStr, "metrics", metrics,
                    "keepCommandSettings", true));
            assertThat(kept.status()).isEqualTo(201);
            assertThat(kept.json().get("keepCommandSettings").asBoolean()).isTrue();

            try {
                Awaitility.await("both sources' settings in the PostgreSQL sink")
                        .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                        .until(() -> storedRowsOf("masked").contains("replicator")
                                && storedRowsOf("kept").contains("replicator"));
                Awaitility.await("all four metrics of both sources").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                        .until(() -> metricsIn(linesOf(jsonFile, "masked")).containsAll(STORED)
                                && metricsIn(linesOf(jsonFile, "kept")).containsAll(STORED));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError(e.getMessage() + "\nJSON file:\n" + Files.readString(jsonFile), e);
            }

            String masked = String.join("\n", linesOf(jsonFile, "masked"));
            String keptLines = String.join("\n", linesOf(jsonFile, "kept"));
            String stored = storedRows();
            String api1 = api.get("/api/v1/sources/masked/status").body() + api.get("/api/v1/sources/kept/status").body()
                    + api.get("/api/v1/sources/masked/window").body() + api.get("/api/v1/window").body()
                    + api.get("/api/v1/sources").body();
            // What stays: the rest of each value, so an operator still sees where the standby streams from.
            assertThat(masked).contains("user=replicator", "password=********", "sslpassword=********",
                    "application_name=standby_a", "postgresql://app:********@db.invalid:6432/app?sslmode=require");
            assertThat(masked).doesNotContain("--user=archiver", "restorer");
            assertThat(keptLines).contains("true --user=archiver:" + ARCHIVE_SECRET, "password=********");
            for (String secret : List.of(REPLICATION_SECRET, URI_SECRET)) {
                assertThat(masked + keptLines).as("JSON file").doesNotContain(secret);
                assertThat(stored).as("PostgreSQL sink").doesNotContain(secret);
                assertThat(api1).as("API").doesNotContain(secret);
                assertThat(log.getAll()).as("log").doesNotContain(secret);
            }
            for (String secret : List.of(ARCHIVE_SECRET, RESTORE_SECRET)) {
                assertThat(masked).as("JSON file of the masking source").doesNotContain(secret);
                assertThat(storedRowsOf("masked")).as("PostgreSQL sink, masking source").doesNotContain(secret);
                assertThat(api1).as("API").doesNotContain(secret);
                assertThat(log.getAll()).as("log").doesNotContain(secret);
            }
            // The server really holds the secrets the test looks for.
            assertThat(server.queryString("postgres", "select setting from pg_settings where name = 'primary_conninfo'"))
                    .contains(REPLICATION_SECRET);
        }
    }

    private static List<String> linesOf(Path jsonFile, String source) throws Exception {
        return Files.readAllLines(jsonFile).stream().filter(l -> l.contains("\"source\":\"" + source + "\"")
                || l.contains("\"dbname\":\"" + source + "\"")).toList();
    }

    private static List<String> metricsIn(List<String> lines) {
        return lines.stream().map(l -> l.replaceAll(".*\"metric\":\"([^\"]*)\".*", "$1")).distinct().toList();
    }

    private static String storedRowsOf(String source) throws Exception {
        return String.join("\n", storedRows().lines().filter(l -> l.contains("\"dbname\": \"" + source + "\"")).toList());
    }

    /** Every row of every table the PostgreSQL sink wrote, as text. */
    private static String storedRows() throws Exception {
        var all = new StringBuilder();
        try (Connection c = storage.connect(STORAGE_DB); Statement s = c.createStatement()) {
            var tables = new ArrayList<String>();
            try (ResultSet rs = s.executeQuery("select format('%I.%I', n.nspname, c.relname) from pg_class c"
                    + " join pg_namespace n on n.oid = c.relnamespace where c.relkind = 'r'"
                    + " and n.nspname not in ('pg_catalog', 'information_schema')")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String table : tables) {
                try (ResultSet rs = s.executeQuery("select to_jsonb(t)::text from " + table + " t")) {
                    while (rs.next()) {
                        all.append(rs.getString(1)).append('\n');
                    }
                }
            }
        }
        return all.toString();
    }
}
