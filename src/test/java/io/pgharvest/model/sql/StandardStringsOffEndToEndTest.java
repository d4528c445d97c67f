package io.pgharvest.model.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.api.ApiClient;
import io.pgharvest.api.RunningApp;
import io.pgharvest.testsupport.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * An application cannot switch literal redaction off: its own session runs with
 * {@code standard_conforming_strings = off}, where a backslash in a plain string escapes the quote
 * after it, and its running statements hold secrets in the literal after such a string, while
 * pgharvest collects long_running_queries as a pg_monitor role into a JSON lines file. No secret
 * reaches the file, the source's status, its window or the log; the statement itself does (its
 * text up to the backslash's string).
 */
@ExtendWith(OutputCaptureExtension.class)
class StandardStringsOffEndToEndTest {

    private static final TestPostgres pg = TestPostgres.shared();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String DB = "scs_off_source";
    private static final String MONITOR = "scs_off_monitor";

    /** Running statements of the corpus, each with a marker of its own before the backslash. */
    private static final List<String> CORPUS = List.of(
            "select pg_sleep(600) as scs_marker_a, 'x\\' , ' as c, 'scs-secret-a1' as d",
            "select pg_sleep(600) as scs_marker_b, 'it\\'s', 'scs-secret-b2', 'tail'",
            "select pg_sleep(600) as scs_marker_c, 'q\\\\\\' || ' as c, 'scs-secret-c3' as d",
            "select pg_sleep(600) as scs_marker_d, N'n\\' , ' as c, 'scs-secret-d4' as d",
            "select pg_sleep(600) as scs_marker_e, '\\' , ' as c, 'password=hunter2 scs-secret-e5' as d");
    private static final List<String> SECRETS = List.of("scs-secret", "hunter2");

    @Test
    void aSessionWithStandardConformingStringsOffPublishesNoLiteral(@TempDir Path dataDir, CapturedOutput log)
            throws Exception {
        prepareServer();
        Path jsonFile = dataDir.resolve("out.jsonl");
        var workload = new ArrayList<Connection>();
        try (RunningApp app = RunningApp.start(dataDir,
                "--pgharvest.sinks[0].type=jsonfile", "--pgharvest.sinks[0].path=" + jsonFile)) {
            ApiClient api = app.api();
            lowerThreshold(api);
            for (String statement : CORPUS) {
                Connection session = pg.connect(DB);
                workload.add(session);
                try (Statement s = session.createStatement()) {
                    s.execute("set standard_conforming_strings = off");
                }
                Thread.ofVirtual().start(() -> quietly(session, statement));
            }
            Awaitility.await("the corpus running").atMost(Duration.ofSeconds(30))
                    .until(() -> pg.queryString(DB, "select count(*) from pg_stat_activity where query like"
                            + " '%scs_marker_%' and pid <> pg_backend_pid()"), String.valueOf(CORPUS.size())::equals);

            assertThat(api.post("/api/v1/sources", Map.of("name", "scs-off", "connStr",
                    "postgresql://" + MONITOR + "@" + pg.host() + ":" + pg.port() + "/" + DB,
                    "metrics", Map.of("long_running_queries", 1))).status()).isEqualTo(201);
            Awaitility.await("every corpus statement in the JSON file").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(300)).ignoreExceptions()
                    .until(() -> {
                        String json = Files.readString(jsonFile);
                        return List.of("a", "b", "c", "d", "e").stream().allMatch(m -> json.contains("scs_marker_" + m));
                    });

            String json = Files.readString(jsonFile);
            String status = api.get("/api/v1/sources/scs-off/status").body();
            String window = api.get("/api/v1/sources/scs-off/window").body();
            for (String secret : SECRETS) {
                assertThat(json).as("JSON file").doesNotContain(secret);
                assertThat(status).as("source status").doesNotContain(secret);
                assertThat(window).as("window").doesNotContain(secret);
                assertThat(log.getAll()).as("log").doesNotContain(secret);
            }
            // The server had the secrets in the texts it showed pgharvest.
            assertThat(pg.queryString(DB, "select string_agg(query, ' ') from pg_stat_activity"
                    + " where query like '%scs_marker_%' and pid <> pg_backend_pid()")).contains(SECRETS);
        } finally {
            pg.queryString(DB, "select count(pg_terminate_backend(pid)) from pg_stat_activity"
                    + " where pid <> pg_backend_pid() and query like '%scs_marker_%'");
            for (Connection c : workload) {
                c.close();
            }
        }
    }

    private static void prepareServer() {
        pg.createDatabase(DB);
        pg.execute(DB, """
                do $$ begin
                  if not exists (select from pg_roles where rolname = 'scs_off_monitor') then
                    create role scs_off_monitor login in role pg_monitor;
                  end if;
                end $$""");
    }

    /** The catalog's long_running_queries with its minute threshold cut to a millisecond. */
    private static void lowerThreshold(ApiClient api) {
        ObjectNode definition = (ObjectNode) api.get("/api/v1/metrics/long_running_queries").json();
        String text = definition.toString().replace("interval '1 minute'", "interval '1 millisecond'");
        assertThat(text).isNotEqualTo(definition.toString());
        ObjectNode changed = (ObjectNode) JSON.readTree(text);
        changed.retain("name", "description", "sqls", "gauges", "instanceLevel", "nodeStatus", "storageName",
                "initSql", "statementTimeoutSeconds", "instanceSqls");
        var response = api.put("/api/v1/metrics/long_running_queries", changed);
        assertThat(response.status()).as(response.toString()).isIn(200, 201);
    }

    private static void quietly(Connection connection, String sql) {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        } catch (Exception e) {
            // ended by pg_terminate_backend at the end of the test
        }
    }
}
