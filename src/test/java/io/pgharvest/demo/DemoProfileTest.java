package io.pgharvest.demo;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pgharvest.embedded.EmbeddedPostgres;
import io.pgharvest.model.connection.ConnectionString;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

import io.pgharvest.PgharvestApplication;
import io.pgharvest.store.ConfigStore;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** What a newcomer sees with the demo profile: measurements in JSON lines and on Prometheus. */
class DemoProfileTest {

    @Test
    void theDemoProfileCollectsAnEmbeddedServerIntoJsonLinesAndPrometheusWithinAMinute(@TempDir Path dir)
            throws Exception {
        int prometheusPort = freePort();
        Path jsonLines = dir.resolve("measurements.jsonl");
        // A server left behind by an earlier crash that took its watchdog too.
        EmbeddedPostgres stale = EmbeddedPostgres.launch(Map.of());
        long stalePid = stale.postmasterPid();
        Files.createDirectories(dir.resolve("data"));
        Files.writeString(dir.resolve("data").resolve(DemoDatabase.MARKER_FILE), stalePid + " " + stale.instanceDir());
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PgharvestApplication.class)
                .profiles("demo")
                // The default (superuser logins refused), whatever the test JVM allows elsewhere.
                .run("--server.port=0", "--pgharvest.security.allow-superuser-sources=false",
                        "--pgharvest.data-dir=" + dir.resolve("data"),
                        "--pgharvest.api.token=demo-test-token-0123456789",
                        "--pgharvest.sinks[0].type=jsonfile", "--pgharvest.sinks[0].path=" + jsonLines,
                        "--pgharvest.sinks[1].type=prometheus", "--pgharvest.sinks[1].port=" + prometheusPort)) {
            assertThat(app.getBean(ConfigStore.class).snapshot().sources()).containsKey(DemoDatabase.SOURCE);
            assertThat(ProcessHandle.of(stalePid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            assertThat(stale.instanceDir()).doesNotExist();
            assertThat(dir.resolve("data").resolve(DemoDatabase.MARKER_FILE)).exists();
            var demo = ConnectionString.parse(app.getBean(ConfigStore.class).snapshot().sources()
                    .get(DemoDatabase.SOURCE).connStr());
            assertThat(demo.user()).isEqualTo("pgharvest_monitor");
            assertThat(demo.password()).hasValueSatisfying(pw -> assertThat(pw).hasSizeGreaterThanOrEqualTo(24));
            var withoutPassword = "jdbc:postgresql://" + demo.hosts().getFirst().host() + ":"
                    + demo.hosts().getFirst().port() + "/postgres?user=postgres";
            assertThatThrownBy(() -> DriverManager.getConnection(withoutPassword).close())
                    .isInstanceOf(SQLException.class).hasMessageContaining("password");

            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
                    Files.exists(jsonLines) && Files.readString(jsonLines).contains("\"metric\":\"db_stats\""));
            String lines = Files.readString(jsonLines);
            assertThat(lines).contains("\"source\":\"demo\"").contains("\"metric\":\"instance_up\"");
            // the queries view's data: query_stats rows once the baseline read is past (10 s later)
            Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
                    Files.readString(jsonLines).contains("\"metric\":\"query_stats\",\"time\":")
                            && Files.readString(jsonLines).lines().anyMatch(line ->
                                    line.contains("\"metric\":\"query_stats\"") && line.contains("\"calls\":")));

            String scrape = Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                    .until(() -> scrape(prometheusPort), body -> body.contains("db_stats"));
            assertThat(scrape).contains("source=\"demo\"");
        } finally {
            if (Files.exists(stale.instanceDir())) {
                stale.close(); // only when the demo did not clean it up (the test failed before)
            }
        }
        assertThat(dir.resolve("data").resolve(DemoDatabase.MARKER_FILE)).doesNotExist();
        removeCluster(dir.resolve("data"));
    }

    @Test
    void aRestartedDemoKeepsWhatItsPostgresSinkWroteAndWritesOn(@TempDir Path dir) throws Exception {
        Path dataDir = dir.resolve("data");
        String[] arguments = {"--server.port=0", "--pgharvest.data-dir=" + dataDir,
            "--pgharvest.api.token=demo-test-token-0123456789", "--pgharvest.window.snapshot-every=0s",
            "--pgharvest.sinks[0].type=jsonfile", "--pgharvest.sinks[0].path=" + dir.resolve("measurements.jsonl")};
        try {
            Timestamp firstRunsOldest;
            long firstRunsRows;
            try (ConfigurableApplicationContext app = demo(arguments)) {
                Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                        .until(() -> historyRows(app, dataDir).rows() >= 2);
                firstRunsOldest = historyRows(app, dataDir).oldest();
                firstRunsRows = historyRows(app, dataDir).rows();
            }
            assertThat(DemoHistory.clusterDir(dataDir).resolve("data").resolve("PG_VERSION")).exists();
            try (ConfigurableApplicationContext app = demo(arguments)) {
                assertThat(historyRows(app, dataDir).oldest()).isEqualTo(firstRunsOldest);
                Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                        .until(() -> historyRows(app, dataDir).rows() > firstRunsRows);
                assertThat(app.getBean(ConfigStore.class).snapshot().sources()).containsKey(DemoDatabase.SOURCE);
                // 6 hours reach before this run's window: the history reader on the demo's sink answers them
                String sixHours = get(app, "/api/v1/sources/demo/window?metric=db_stats&from="
                        + java.time.Instant.now().minus(Duration.ofHours(6)));
                assertThat(sixHours).contains("\"store\":\"postgres\"").contains("\"column\":\"xact_commit\"");
            }
        } finally {
            removeCluster(dataDir);
        }
    }

    private static ConfigurableApplicationContext demo(String... arguments) {
        return new SpringApplicationBuilder(PgharvestApplication.class).profiles("demo").run(arguments);
    }

    private record HistoryRows(long rows, Timestamp oldest) {
    }

    /** The demo source's db_stats rows in the demo's history database, read as the demo's superuser. */
    private static HistoryRows historyRows(ConfigurableApplicationContext app, Path dataDir) throws SQLException {
        int port = app.getEnvironment().getRequiredProperty(DemoHistory.PORT_PROPERTY, Integer.class);
        var login = new java.util.Properties();
        login.setProperty("user", "postgres");
        login.setProperty("password", Files.exists(dataDir.resolve(DemoHistory.PASSWORD_FILE))
                ? DemoHistory.password(dataDir) : "");
        try (var c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + DemoHistory.DATABASE,
                login); var st = c.createStatement();
                var rs = st.executeQuery("select count(*), min(time) from public.db_stats where dbname = 'demo'")) {
            rs.next();
            return new HistoryRows(rs.getLong(1), rs.getTimestamp(2));
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) { // the sink has not created the table yet
                return new HistoryRows(0, null);
            }
            throw e;
        }
    }

    /** The demo keeps its cluster outside the data directory, on purpose: a test removes it. */
    private static void removeCluster(Path dataDir) throws Exception {
        Path cluster = DemoHistory.clusterDir(dataDir);
        if (Files.exists(cluster)) {
            try (var tree = Files.walk(cluster)) {
                tree.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    private static String get(ConfigurableApplicationContext app, String path) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            var answer = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + app.getEnvironment().getProperty("local.server.port") + path))
                    .header("Authorization", "Bearer demo-test-token-0123456789").build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            return answer.body();
        }
    }

    private static String scrape(int port) throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
